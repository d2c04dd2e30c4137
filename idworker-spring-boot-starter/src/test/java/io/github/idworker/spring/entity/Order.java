package io.github.idworker.spring.entity;

import org.springframework.data.annotation.Id;

/** An entity whose ID comes from the snowflake worker; mapped by MyBatis and Spring Data JDBC alike. */
public class Order {

    @Id
    @GeneratedId
    private Long id;
    private String name;

    public Order() {
    }

    public Order(String name) {
        this.name = name;
    }

    public Long getId() {
        return id;
    }

    public void setId(Long id) {
        this.id = id;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }
}
