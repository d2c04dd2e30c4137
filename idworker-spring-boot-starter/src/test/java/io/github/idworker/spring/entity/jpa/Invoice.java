package io.github.idworker.spring.entity.jpa;

import io.github.idworker.spring.entity.hibernate.SnowflakeId;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A Hibernate entity whose ID comes from the snowflake worker; its table name is replaced per test run. */
@Entity
@Table(name = "jpa_invoice")
public class Invoice {

    @Id
    @SnowflakeId
    private Long id;
    private String name;

    protected Invoice() {
    }

    public Invoice(String name) {
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
}
