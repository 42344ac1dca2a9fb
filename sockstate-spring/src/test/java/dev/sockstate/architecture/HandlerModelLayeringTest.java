package dev.sockstate.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * {@code sockstate-spring} is the handler model on Spring Framework alone, for any Spring application:
 * no Spring Boot (that is the auto-configuration's), no test support, and the core reached through
 * the API user code imports, never the engine, a backend or JNA.
 */
@AnalyzeClasses(packages = "dev.sockstate.spring", importOptions = ImportOption.DoNotIncludeTests.class)
class HandlerModelLayeringTest {

    @ArchTest
    static final ArchRule theModuleHoldsOnlyTheHandlerModelAndTheMessageMappers = classes().should()
            .resideInAnyPackage("dev.sockstate.spring.handler", "dev.sockstate.spring.message");

    @ArchTest
    static final ArchRule theHandlerModelKnowsNoSpringBoot = noClasses().should().dependOnClassesThat()
            .resideInAPackage("org.springframework.boot..")
            .as("the handler model depends on Spring Framework only, so that a plain Spring application can use it");

    @ArchTest
    static final ArchRule theHandlerModelKnowsNoTestSupport = noClasses().should().dependOnClassesThat()
            .resideInAnyPackage("org.springframework.test..", "dev.sockstate.boot.test..");

    @ArchTest
    static final ArchRule theHandlerModelKnowsTheCoreByItsUserApiOnly = noClasses().should().dependOnClassesThat()
            .resideInAnyPackage("dev.sockstate.server.engine..", "dev.sockstate.server.observer..", "dev.sockstate.port.epoll..",
                    "dev.sockstate.port.winsock..", "dev.sockstate.port.nio..", "com.sun.jna..");

    /** Jackson is optional: only the JSON mapper uses it. */
    @ArchTest
    static final ArchRule onlyTheJsonMapperUsesJackson = noClasses().that()
            .doNotHaveFullyQualifiedName("dev.sockstate.spring.message.JsonMessageMapper").should().dependOnClassesThat()
            .resideInAnyPackage("tools.jackson..", "com.fasterxml.jackson..");

    /** The annotations and their adapters take whatever mapper a listener has: they know none of the shipped ones. */
    @ArchTest
    static final ArchRule theHandlersKnowNoMessageMapperOfOurs = noClasses().that().resideInAPackage("dev.sockstate.spring.handler")
            .should().dependOnClassesThat().resideInAPackage("dev.sockstate.spring.message");

    @ArchTest
    static final ArchRule theModelKnowsNoAutoConfiguration = noClasses().should().dependOnClassesThat()
            .resideInAPackage("dev.sockstate.autoconfigure..");

    /** The engine's internal packages are public for the engine's own packages only (LayeringTest in the core closes them there too). */
    @ArchTest
    static final ArchRule theEnginesInternalPackagesAreClosed = noClasses().should().dependOnClassesThat()
            .resideInAnyPackage("dev.sockstate.server.engine.turn..", "dev.sockstate.server.engine.tls..", "dev.sockstate.server.engine.proxy..",
                    "dev.sockstate.server.engine.embedded..");
}
