package dev.sockstate.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The dependencies the reference documentation shows ({@code docs/dependencies.xml}): well-formed, and
 * every sockstate module they name is one the bill of materials manages, the bill itself at its version.
 */
class DocumentedDependenciesTests {

    @Test
    void everySockstateModuleShownIsManagedByTheBillOfMaterials() throws Exception {
        Document bom;
        try (InputStream in = Files.newInputStream(Path.of("..", "sockstate-bom", "pom.xml"))) {
            bom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in);
        }
        String version = text(bom.getDocumentElement(), "version");
        List<String> managed = new ArrayList<>();
        NodeList managedDependencies = bom.getElementsByTagName("dependency");
        for (int i = 0; i < managedDependencies.getLength(); i++) {
            managed.add(text((Element) managedDependencies.item(i), "artifactId"));
        }
        Document shown;
        try (InputStream in = DocumentedDependenciesTests.class.getResourceAsStream("/docs/dependencies.xml")) {
            shown = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in);
        }
        NodeList dependencies = shown.getElementsByTagName("dependency");
        assertThat(dependencies.getLength()).isPositive();
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element dependency = (Element) dependencies.item(i);
            if (!text(dependency, "groupId").equals("dev.sockstate")) {
                continue;
            }
            String artifact = text(dependency, "artifactId");
            if (artifact.equals("sockstate-bom")) {
                assertThat(text(dependency, "version")).as("the bill of materials' version").isEqualTo(version);
                assertThat(text(dependency, "type")).isEqualTo("pom");
                assertThat(text(dependency, "scope")).isEqualTo("import");
            }
            else {
                assertThat(managed).as("modules the bill of materials manages").contains(artifact);
            }
        }
    }

    /** @return the text of the element's first child element of that name (its own, not a descendant's) */
    private static String text(Element parent, String name) {
        for (org.w3c.dom.Node child = parent.getFirstChild(); child != null; child = child.getNextSibling()) {
            if (child instanceof Element element && element.getTagName().equals(name)) {
                return element.getTextContent().trim();
            }
        }
        throw new AssertionError(parent.getTagName() + " has no " + name);
    }
}
