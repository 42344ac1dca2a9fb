package dev.sockstate.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The auto-configuration is thin glue: it holds only {@code dev.sockstate.autoconfigure} and reaches
 * the core through its public API, never a backend or JNA. What users write against is elsewhere:
 * the handler model (the annotations users put on their beans) in {@code sockstate-spring}, the test
 * support in {@code sockstate-spring-boot-test}.
 */
@AnalyzeClasses(packages = "dev.sockstate.autoconfigure", importOptions = ImportOption.DoNotIncludeTests.class)
class AutoConfigurationLayeringTest {

    @ArchTest
    static final ArchRule theModuleHoldsOnlyTheAutoConfiguration = classes().should()
            .resideInAPackage("dev.sockstate.autoconfigure..");

    /** Applications run without spring-test: the test support is a module of its own, sockstate-spring-boot-test. */
    @ArchTest
    static final ArchRule nothingUsesSpringTest = noClasses().should().dependOnClassesThat()
            .resideInAnyPackage("org.springframework.test..", "org.springframework.boot.test..", "dev.sockstate.boot.test..");

    /** Micrometer's observation API is optional: only the observation package uses it. */
    @ArchTest
    static final ArchRule onlyTheObservationPackageUsesObservations = noClasses().that()
            .resideOutsideOfPackage("dev.sockstate.autoconfigure.observation..").should().dependOnClassesThat()
            .resideInAnyPackage("io.micrometer.observation..");

    /** The annotations users put on their beans are the handler model's ({@code dev.sockstate.spring.handler}), not Boot's. */
    @ArchTest
    static final ArchRule theAutoConfigurationDeclaresNoAnnotationForUsers = noClasses().that().areAnnotations().should().bePublic()
            .allowEmptyShould(true);

    @ArchTest
    static final ArchRule theAutoConfigurationKnowsNoBackendAndNoJna = noClasses().should().dependOnClassesThat()
            .resideInAnyPackage("dev.sockstate.port.epoll..", "dev.sockstate.port.winsock..", "com.sun.jna..");

    /** The engine's internal packages are public for the engine's own packages only (LayeringTest in the core closes them there too). */
    @ArchTest
    static final ArchRule theEnginesInternalPackagesAreClosed = noClasses().should().dependOnClassesThat()
            .resideInAnyPackage("dev.sockstate.server.engine.turn..", "dev.sockstate.server.engine.tls..", "dev.sockstate.server.engine.proxy..",
                    "dev.sockstate.server.engine.embedded..");
}
