package io.github.idworker.server;

import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Serves the operators' status page at {@code /status}: one HTML page ({@code static/status.html}, no build step,
 * no external scripts) that reads the Actuator endpoint {@code /actuator/idworker} and {@code /actuator/health}
 * every two seconds and shows leases, segment tags, Redis sequences, serial rules and pools. It only reads; it
 * shows what the endpoint shows, which holds no secret. In production keep it where the Actuator endpoints are
 * kept (a management port or an authenticated path).
 */
@Configuration(proxyBeanMethods = false)
public class StatusPage implements WebMvcConfigurer {

    @Override
    public void addViewControllers(ViewControllerRegistry registry) {
        registry.addViewController("/status").setViewName("forward:/status.html");
    }
}
