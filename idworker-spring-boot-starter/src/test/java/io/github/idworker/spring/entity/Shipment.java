package io.github.idworker.spring.entity;

import org.springframework.data.annotation.Id;

/** An aggregate with a second filled field beside its ID: a tracking number from the segment tag {@code shipment}. */
public class Shipment {

    @Id
    @GeneratedId
    private Long id;
    @GeneratedId(generator = "segment:shipment")
    private Long trackingNo;
    private String name;

    public Shipment() {
    }

    public Shipment(String name) {
        this.name = name;
    }

    public Long getId() {
        return id;
    }

    public void setId(Long id) {
        this.id = id;
    }

    public Long getTrackingNo() {
        return trackingNo;
    }

    public void setTrackingNo(Long trackingNo) {
        this.trackingNo = trackingNo;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }
}
