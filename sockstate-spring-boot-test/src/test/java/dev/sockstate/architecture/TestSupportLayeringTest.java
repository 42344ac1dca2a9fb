package dev.sockstate.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The test support is {@code dev.sockstate.boot.test} only, and knows the server by the properties the
 * auto-configuration reads and publishes: it depends on no class of the auto-configuration, the
 * handler model or the core, so that an application's tests need nothing of them beyond what the
 * application already has.
 */
@AnalyzeClasses(packages = "dev.sockstate.boot.test", importOptions = ImportOption.DoNotIncludeTests.class)
class TestSupportLayeringTest {

    @ArchTest
    static final ArchRule theTestSupportKnowsTheServerByItsPropertiesOnly = noClasses().should().dependOnClassesThat()
            .resideInAnyPackage("dev.sockstate.autoconfigure..", "dev.sockstate.spring..", "dev.sockstate.server..",
                    "dev.sockstate.port..");

    /** Users put {@code @LocalListenerPort} and {@code @SocketHandlerTest} on their tests: the only public types. */
    @ArchTest
    static final ArchRule theOnlyPublicTypesAreTheAnnotations = classes().that().doNotHaveSimpleName("LocalListenerPort")
            .and().doNotHaveSimpleName("SocketHandlerTest").and().doNotHaveSimpleName("package-info").should().notBePublic();

    /** The engine's internal packages are public for the engine's own packages only (LayeringTest in the core closes them there too). */
    @ArchTest
    static final ArchRule theEnginesInternalPackagesAreClosed = noClasses().should().dependOnClassesThat()
            .resideInAnyPackage("dev.sockstate.server.engine.turn..", "dev.sockstate.server.engine.tls..", "dev.sockstate.server.engine.proxy..",
                    "dev.sockstate.server.engine.embedded..");
}
