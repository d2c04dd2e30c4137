package io.github.idworker.spring.entity.jpa;

import io.github.idworker.spring.entity.hibernate.SourcedId;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A Hibernate entity whose ID comes from the segment tag {@code receipt}, as text. */
@Entity
@Table(name = "jpa_receipt")
public class Receipt {

    @Id
    @SourcedId("segment:receipt")
    private String id;
    private String name;

    protected Receipt() {
    }

    public Receipt(String name) {
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
}
