package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.spring.annotation.EnableSegmentIdGenerators;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code idworker.*} values in an application without the {@code @Enable…} annotation that reads them: a WARN
 * names the property, says nothing reads it and, for the worker's values, what the check would have refused;
 * the application still starts.
 */
@ExtendWith(OutputCaptureExtension.class)
class IdWorkerPropertiesCheckTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdWorkerPropertiesCheckAutoConfiguration.class));

    @Configuration(proxyBeanMethods = false)
    static class PlainApp {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableSegmentIdGenerators
    static class SegmentApp {
    }

    @Test
    void aBadWorkerValueWithoutEnableIdWorkerIsWarnedAboutNamingTheProperty(CapturedOutput output) {
        runner.withUserConfiguration(PlainApp.class).withPropertyValues("idworker.snowflake.worker-bits=0")
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getErr()).contains("WARN").contains("idworker: [idworker.snowflake.worker-bits] is set, but "
                + "no @EnableIdWorker is present, so nothing reads it; add @EnableIdWorker to a @Configuration class "
                + "or remove it");
        assertThat(output.getErr()).contains("idworker: idworker.snowflake.worker-bits: must be 1 to 20")
                .contains("(@EnableIdWorker would refuse to start with this value)");
    }

    @Test
    void aValueThatCannotBeBoundIsWarnedAboutNamingTheProperty(CapturedOutput output) {
        runner.withUserConfiguration(PlainApp.class).withPropertyValues("idworker.lease.ttl=soon")
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getErr()).contains("WARN").contains("idworker: idworker.lease.ttl cannot be read");
    }

    @Test
    void onlyTheFeatureWithoutItsAnnotationIsWarnedAbout(CapturedOutput output) {
        runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withUserConfiguration(SegmentApp.class)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(), "idworker.segment.auto-create=true",
                        "idworker.pool.entities.user.name=users", "idworker.pool.entities.user.step=100")
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getErr()).contains("idworker: [idworker.pool.entities.user.name, "
                + "idworker.pool.entities.user.step] are set, but no @EnableIdPools is present")
                .doesNotContain("@EnableSegmentIdGenerators is present");
    }

    @Test
    void noIdworkerValueNoWarning(CapturedOutput output) {
        runner.withUserConfiguration(PlainApp.class).withPropertyValues("spring.application.name=Order Service")
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getErr()).doesNotContain("idworker:");
    }
}
