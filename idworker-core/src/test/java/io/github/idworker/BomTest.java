package io.github.idworker;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * idworker-bom has no parent (so that importing it pins nothing but idworker's own artifacts), which leaves two
 * things to hand: its version and its list. This test fails when the BOM's version differs from the parent's, when a
 * module's parent version differs, or when the BOM's list is not exactly the published modules (those of the root
 * {@code <modules>} that do not set {@code maven.deploy.skip}). Runs from idworker-core's directory.
 */
class BomTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    @Test
    void theBomListsEveryPublishedModuleAtTheParentsVersion() throws Exception {
        Element root = read(ROOT.resolve("pom.xml"));
        Element bom = read(ROOT.resolve("idworker-bom/pom.xml"));
        String version = child(root, "version");
        assertThat(child(bom, "version")).as("idworker-bom's version").isEqualTo(version);

        Set<String> published = new TreeSet<>();
        for (Element module : children(child(root, "modules", Element.class), "module")) {
            String name = module.getTextContent().trim();
            if (name.equals("idworker-bom")) {
                continue;
            }
            Element pom = read(ROOT.resolve(name).resolve("pom.xml"));
            assertThat(child(child(pom, "parent", Element.class), "version")).as(name + "'s parent version")
                    .isEqualTo(version);
            Element properties = child(pom, "properties", Element.class);
            boolean skipped = properties != null && "true".equals(child(properties, "maven.deploy.skip"));
            if (!skipped) {
                published.add(name);
            }
        }
        assertThat(published).as("published modules").contains("idworker-core", "idworker-spring-boot-starter")
                .doesNotContain("idworker-sample", "idworker-server", "idworker-benchmarks");

        Set<String> listed = new TreeSet<>();
        Element managed = child(child(bom, "dependencyManagement", Element.class), "dependencies", Element.class);
        for (Element dependency : children(managed, "dependency")) {
            assertThat(child(dependency, "version")).isEqualTo("${project.version}");
            listed.add(child(dependency, "artifactId"));
        }
        assertThat(listed).as("idworker-bom's dependencyManagement: every published module, nothing else")
                .isEqualTo(published);
    }

    private static Element read(Path pom) throws Exception {
        Document document = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(Files.newInputStream(pom));
        return document.getDocumentElement();
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            if (nodes.item(i) instanceof Element e && e.getTagName().equals(name)) {
                out.add(e);
            }
        }
        return out;
    }

    private static Element child(Element parent, String name, Class<Element> type) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? null : type.cast(found.get(0));
    }

    private static String child(Element parent, String name) {
        Node node = child(parent, name, Element.class);
        return node == null ? null : node.getTextContent().trim();
    }
}
