package io.github.idworker.spring.boot.autoconfigure;

import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.GetMapping;

/**
 * The operators' status page: answers {@code GET /status} (and {@code HEAD}) with the one self-contained HTML file
 * {@value #RESOURCE} shipped in the starter. The page fetches nothing but {@code actuator/idworker} and
 * {@code actuator/health}, relative to itself, so it follows a servlet context path; it only reads, and shows nothing
 * those endpoints do not. The file lies outside Spring Boot's static locations, so it is served only while
 * {@code idworker.status-page.enabled} is true.
 */
@Controller
public class IdWorkerStatusPage {

    /** Where the page lies on the class path. */
    public static final String RESOURCE = "META-INF/idworker/status.html";

    private final Resource page = new ClassPathResource(RESOURCE, IdWorkerStatusPage.class.getClassLoader());

    /** The page, never cached: a browser picks up a new version at its next visit. */
    @GetMapping(path = "/status", produces = MediaType.TEXT_HTML_VALUE)
    public ResponseEntity<Resource> page() {
        return ResponseEntity.ok().cacheControl(CacheControl.noStore()).contentType(MediaType.TEXT_HTML).body(page);
    }
}
