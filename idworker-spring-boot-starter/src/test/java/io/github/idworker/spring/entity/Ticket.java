package io.github.idworker.spring.entity;

import org.springframework.data.annotation.Id;

/** An entity whose ID comes from the segment tag {@code ticket}, as text. */
public class Ticket {

    @Id
    @GeneratedId(generator = "segment:ticket")
    private String id;
    private String name;

    public Ticket() {
    }

    public Ticket(String name) {
        this.name = name;
    }

    public String getId() {
        return id;
    }

    public void setId(String id) {
        this.id = id;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }
}
