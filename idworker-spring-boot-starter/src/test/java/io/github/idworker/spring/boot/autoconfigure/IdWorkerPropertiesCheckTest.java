package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.spring.annotation.EnableIdWorker;
import io.github.idworker.spring.annotation.EnableSegmentIdGenerators;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code idworker.*} values in an application without the {@code @Enable…} annotation that reads them: a WARN
 * names the property, says nothing reads it and, for the worker's values, what the check would have refused;
 * the application still starts. With or without the annotations: a name that is no property of idworker is warned
 * about with the property it most likely meant, and a duration without a unit with how it was read.
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

    @Configuration(proxyBeanMethods = false)
    @EnableIdWorker
    static class WorkerApp {
    }

    /** The application's own properties class under idworker.*: its names are its own, not unknown. */
    @ConfigurationProperties("idworker.orders")
    static class OrdersProperties {

        private String tablePrefix = "";

        public String getTablePrefix() {
            return tablePrefix;
        }

        public void setTablePrefix(String tablePrefix) {
            this.tablePrefix = tablePrefix;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(OrdersProperties.class)
    static class OwnPropertiesApp {
    }

    private ApplicationContextRunner worker() {
        return runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withUserConfiguration(WorkerApp.class).withPropertyValues(TestNames.SHORT_DB_LEASE)
                .withPropertyValues("spring.datasource.url=" + TestNames.h2Url(),
                        "idworker.namespace=" + TestNames.namespace());
    }

    @Test
    void anUnknownNameIsWarnedAboutWithEnableIdWorkerPresentSayingWhichPropertyItMeant(CapturedOutput output) {
        worker().withPropertyValues("idworker.lease.tll=5s").run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getErr()).contains("WARN").contains("idworker: idworker.lease.tll (")
                .contains(") is not a property of idworker, so nothing reads it; did you mean idworker.lease.ttl?");
    }

    /** Logged on the bean definitions, so it comes before the failure it explains: the table was never created. */
    @Test
    void theWarningPrecedesAStartupFailureItExplains(CapturedOutput output) {
        worker().withPropertyValues("idworker.jdbc.initialize-schema=never", "idworker.jdbc.intialize-schema=always")
                .run(context -> assertThat(context).hasFailed());
        assertThat(output.getErr()).contains("idworker: idworker.jdbc.intialize-schema (")
                .contains("did you mean idworker.jdbc.initialize-schema?");
    }

    @Test
    void anUnknownNameIsWarnedAboutOnceWithoutTheAnnotationToo(CapturedOutput output) {
        runner.withUserConfiguration(PlainApp.class).withPropertyValues("idworker.snowflake.worker-bit=8",
                "idworker.segment.no-such-thing=1").run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getErr()).contains("idworker: idworker.snowflake.worker-bit (")
                .contains("did you mean idworker.snowflake.worker-bits?")
                .contains("idworker: idworker.segment.no-such-thing (").contains("fix or remove it")
                .doesNotContain("no @EnableIdWorker is present").doesNotContain("no @EnableSegmentIdGenerators");
    }

    @Test
    void namesOfMapsListsTheClientAndTheApplicationsOwnPropertiesAreNotUnknown(CapturedOutput output) {
        worker().withUserConfiguration(OwnPropertiesApp.class)
                .withPropertyValues("idworker.serial.rules.order.prefix=ORD", "idworker.serial.rules.order.width=6",
                        "idworker.segment.tags.invoice.start-after=100", "idworker.pool.entities[orders.v2].step=100",
                        "idworker.client.app-key=orders-app", "idworker.client.environments[0]=http://a:1",
                        "idworker.client.environments[1]=http://b:1", "idworker.orders.table-prefix=o_")
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getErr()).doesNotContain("is not a property of idworker");
    }

    @Test
    void aDurationWithoutAUnitIsWarnedAboutAsMilliseconds(CapturedOutput output) {
        runner.withUserConfiguration(PlainApp.class).withPropertyValues("idworker.lease.max-skew=500",
                "idworker.lease.ttl=15s").run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getErr()).contains("idworker: idworker.lease.max-skew=500 was read as 500 ms (a number "
                + "without a unit is milliseconds); write 500ms to keep it, or 500s for seconds")
                .doesNotContain("idworker.lease.ttl=15s was read");
    }

    @Test
    void noIdworkerValueNoWarning(CapturedOutput output) {
        runner.withUserConfiguration(PlainApp.class).withPropertyValues("spring.application.name=Order Service")
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getErr()).doesNotContain("idworker:");
    }
}
