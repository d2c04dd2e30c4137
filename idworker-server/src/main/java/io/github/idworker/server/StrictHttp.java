package io.github.idworker.server;

import org.apache.catalina.Valve;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * The server's HTTP hygiene, so that every input is strict and every error a problem document: paths and queries in
 * one plain spelling ({@link StrictRequestFilter}), {@code GET} only on endpoints that issue numbers
 * ({@link IssuingMethodsFilter}), and Tomcat's HTML error report replaced by {@link ProblemErrorReportValve}. The
 * errors inside Spring MVC are {@link ApiExceptionHandler}'s, those outside it {@link ProblemErrorController}'s.
 */
@Configuration(proxyBeanMethods = false)
public class StrictHttp {

    /** Both filters answer through MVC's exception resolvers, so their 400 and 405 look like every other error. */
    @Bean
    FilterRegistrationBean<StrictRequestFilter> strictRequestFilter(
            @Qualifier("handlerExceptionResolver") ObjectProvider<HandlerExceptionResolver> resolver) {
        FilterRegistrationBean<StrictRequestFilter> registration =
                new FilterRegistrationBean<>(new StrictRequestFilter(resolver::getObject));
        // first of all filters: nothing, not even metrics or the character encoding, should act on a bad spelling
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
        return registration;
    }

    @Bean
    FilterRegistrationBean<IssuingMethodsFilter> issuingMethodsFilter(
            @Qualifier("requestMappingHandlerMapping") ObjectProvider<RequestMappingHandlerMapping> mapping,
            @Qualifier("handlerExceptionResolver") ObjectProvider<HandlerExceptionResolver> resolver) {
        FilterRegistrationBean<IssuingMethodsFilter> registration =
                new FilterRegistrationBean<>(new IssuingMethodsFilter(mapping::getObject, resolver::getObject));
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 1);
        return registration;
    }

    /**
     * Puts {@link ProblemErrorReportValve} where Tomcat's {@code ErrorReportValve} was. Boot adds an
     * {@code ErrorReportValve} to the host itself (without stack traces); ordered last, this runs after that and
     * removes it, and the host's {@code errorReportValveClass} is set so the host does not add its default again
     * when it starts.
     */
    @Bean
    @Order(Ordered.LOWEST_PRECEDENCE)
    WebServerFactoryCustomizer<TomcatServletWebServerFactory> problemErrorReportValve() {
        return factory -> factory.addContextCustomizers(context -> {
            StandardHost host = (StandardHost) context.getParent();
            for (Valve valve : host.getPipeline().getValves()) {
                if (valve instanceof ErrorReportValve) {
                    host.getPipeline().removeValve(valve);
                }
            }
            host.getPipeline().addValve(new ProblemErrorReportValve());
            host.setErrorReportValveClass(ProblemErrorReportValve.class.getName());
        });
    }
}
