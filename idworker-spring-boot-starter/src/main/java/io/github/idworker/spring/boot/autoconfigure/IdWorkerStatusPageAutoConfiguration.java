package io.github.idworker.spring.boot.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Serves the operators' status page at {@code /status} when {@code idworker.status-page.enabled=true} in a servlet
 * application with Spring MVC ({@link IdWorkerStatusPage}). Off by default, so that adding the starter never takes
 * an application's own {@code /status}; the ID server and the sample switch it on in their configuration.
 */
@AutoConfiguration
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
@ConditionalOnProperty(prefix = "idworker.status-page", name = "enabled", havingValue = "true")
public class IdWorkerStatusPageAutoConfiguration {

    /** The page's handler; an application replaces it by declaring its own {@link IdWorkerStatusPage} bean. */
    @Bean
    @ConditionalOnMissingBean
    public IdWorkerStatusPage idWorkerStatusPage() {
        return new IdWorkerStatusPage();
    }
}
