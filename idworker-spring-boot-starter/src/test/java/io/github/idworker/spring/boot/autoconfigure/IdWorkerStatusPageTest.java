package io.github.idworker.spring.boot.autoconfigure;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ClassPathResource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.head;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The operators' status page: served at {@code /status} only when {@code idworker.status-page.enabled=true}, and a
 * single file that fetches nothing but the two Actuator endpoints.
 */
class IdWorkerStatusPageTest {

    private final WebApplicationContextRunner web = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdWorkerStatusPageAutoConfiguration.class))
            .withUserConfiguration(Mvc.class);

    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    static class Mvc {
    }

    @Test
    void offByDefaultSoAnApplicationsOwnStatusIsNeverTaken() {
        web.run(context -> {
            assertThat(context).doesNotHaveBean(IdWorkerStatusPage.class);
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            mvc.perform(get("/status")).andExpect(status().isNotFound());
        });
    }

    @Test
    void servedAtStatusWhenEnabled() {
        web.withPropertyValues("idworker.status-page.enabled=true").run(context -> {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            String body = mvc.perform(get("/status")).andExpect(status().isOk())
                    .andExpect(content().contentTypeCompatibleWith("text/html"))
                    .andReturn().getResponse().getContentAsString(StandardCharsets.UTF_8);
            assertThat(body).contains("<title>idworker status</title>");
            mvc.perform(head("/status")).andExpect(status().isOk());
        });
    }

    @Test
    void theFileFetchesNothingButTheTwoActuatorEndpoints() throws Exception {
        String page = new ClassPathResource(IdWorkerStatusPage.RESOURCE).getContentAsString(StandardCharsets.UTF_8);
        // no script, style sheet, font or image from elsewhere: everything is inline
        assertThat(page).doesNotContainPattern("(?i)<(script|link|img|iframe)[^>]*\\s(src|href)=")
                .doesNotContainPattern("(?i)@import|url\\(|https?://");
        Matcher reads = Pattern.compile("readJson\\('([^']+)'\\)").matcher(page);
        List<String> paths = reads.results().map(m -> m.group(1)).toList();
        assertThat(paths).containsExactlyInAnyOrder("actuator/idworker", "actuator/health");
        assertThat(Pattern.compile("fetch\\(").matcher(page).results().count()).isEqualTo(1);
    }
}
