package dev.sockstate.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The layout of the core as rules: the portable port knows no backend, server code no backend, JNA
 * stays in the backends, and nothing in the core knows Spring.
 */
@AnalyzeClasses(packages = "dev.sockstate", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    @ArchTest
    static final ArchRule thePortableModelDependsOnNoOtherPartOfSockstate = noClasses()
            .that().resideInAPackage("dev.sockstate.port")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.port.epoll..", "dev.sockstate.port.winsock..",
                    "dev.sockstate.server..", "dev.sockstate.autoconfigure..");

    @ArchTest
    static final ArchRule onlyTheBackendsTouchJna = noClasses()
            .that().resideOutsideOfPackages("dev.sockstate.port.epoll..", "dev.sockstate.port.winsock..")
            .should().dependOnClassesThat().resideInAPackage("com.sun.jna..");

    @ArchTest
    static final ArchRule backendsDoNotKnowEachOther = noClasses()
            .that().resideInAPackage("dev.sockstate.port.epoll..")
            .should().dependOnClassesThat().resideInAPackage("dev.sockstate.port.winsock..");

    @ArchTest
    static final ArchRule theWinsockBackendDoesNotKnowEpoll = noClasses()
            .that().resideInAPackage("dev.sockstate.port.winsock..")
            .should().dependOnClassesThat().resideInAPackage("dev.sockstate.port.epoll..")
            .allowEmptyShould(true);

    @ArchTest
    static final ArchRule backendsDoNotKnowTheServerOrSpring = noClasses()
            .that().resideInAnyPackage("dev.sockstate.port..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.server..", "dev.sockstate.autoconfigure..",
                    "org.springframework..");

    @ArchTest
    static final ArchRule theServerDependsOnThePortNeverOnABackend = noClasses()
            .that().resideInAPackage("dev.sockstate.server..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.port.epoll..", "dev.sockstate.port.winsock..",
                    "dev.sockstate.autoconfigure..")
            .allowEmptyShould(true);

    @ArchTest
    static final ArchRule theCoreKnowsNoSpring = noClasses()
            .should().dependOnClassesThat().resideInAPackage("org.springframework..");
}
