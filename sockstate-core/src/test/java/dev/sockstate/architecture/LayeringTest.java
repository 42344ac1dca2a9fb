package dev.sockstate.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.fields;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noMethods;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.List;

/**
 * The layout of the core as rules. Packages by audience, each depending only on those below it:
 * <pre>
 * server.engine      the engine; only SocketServer and EmbeddedConnection (a test harness) are public
 *   server.engine.turn  its turn layer, internal: ownership, dispatch, registrations; no connection
 *   server.engine.tls   its TLS stage, internal: an ordinary stage, knows its connection only through its StageContext
 *   server.engine.proxy its PROXY protocol stage, internal: the same
 *   server.engine.embedded  the embedded harness's socket and port in memory, internal: knows no engine
 *   server           what user code imports: handlers, settings, stages
 *   server.framing   frame decoders and encoders, built in or a protocol's own
 *   server.tls       how a listener's connections are secured with TLS (the stage itself is the engine's)
 *   server.proxy     how a listener behind a load balancer reads the PROXY protocol, and the header it read
 *   server.admission who may connect to a listener and how fast: address ranges, caps, rates (below server.proxy)
 *   server.shaping   how fast a listener's or client's connections read and write: rates in bytes a second
 *   server.observer  what a metrics binding implements
 *   server.wiretap   a stage that logs a connection's events and bytes at DEBUG
 *   server.heartbeat a stage that pings a quiet connection and aborts it when nothing answers
 *     port           the portable notification model (and the backend SPI's base classes)
 *       port.epoll, port.winsock   the native backends, the only code that touches JNA (and epoll's FFM
 *                                  binding the only code that touches java.lang.foreign)
 *       port.nio       the portable backend, on JDK selectors and channels: no JNA
 * </pre>
 * Nothing in the core knows Spring, and no two packages depend on each other.
 */
@AnalyzeClasses(packages = "dev.sockstate", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    /** The FFM binding: its class and the classes nested in it. */
    private static final String FFM_BINDING = "dev\\.sockstate\\.port\\.epoll\\.FfmCalls(\\$.*)?";

    @ArchTest
    static final ArchRule thePortableModelDependsOnNoOtherPartOfSockstate = noClasses()
            .that().resideInAPackage("dev.sockstate.port")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.port.epoll..", "dev.sockstate.port.winsock..",
                    "dev.sockstate.port.nio..", "dev.sockstate.server..");

    @ArchTest
    static final ArchRule onlyTheBackendsTouchJna = noClasses()
            .that().resideOutsideOfPackages("dev.sockstate.port.epoll..", "dev.sockstate.port.winsock..")
            .should().dependOnClassesThat().resideInAPackage("com.sun.jna..");

    /** Netty is an optional dependency: one class names it, and only once the probe found it on the class path. */
    @ArchTest
    static final ArchRule onlyTheNativeTlsEnginesTouchNetty = noClasses()
            .that().doNotHaveFullyQualifiedName("dev.sockstate.server.engine.tls.OpenSslEngines")
            .and().haveNameNotMatching("dev\\.sockstate\\.server\\.engine\\.tls\\.OpenSslEngines\\$.*")
            .should().dependOnClassesThat().resideInAnyPackage("io.netty..");

    @ArchTest
    static final ArchRule onlyTheFfmBindingTouchesTheForeignFunctionApi = noClasses()
            .that().haveNameNotMatching(FFM_BINDING)
            .should().dependOnClassesThat().resideInAPackage("java.lang.foreign..")
            .as("only the epoll backend's FFM binding calls the foreign function API (compiled for Java 22, by a JDK 22 or later)");

    @ArchTest
    static final ArchRule noClassRefersToTheFfmBinding = noClasses()
            .that().haveNameNotMatching(FFM_BINDING)
            .should().dependOnClassesThat().haveFullyQualifiedName("dev.sockstate.port.epoll.FfmCalls")
            .as("the FFM binding is loaded by name, on Java 22 and later only: no class compiled for 17 refers to it");

    @ArchTest
    static final ArchRule theNioBackendTouchesNoJna = noClasses()
            .that().resideInAPackage("dev.sockstate.port.nio..")
            .should().dependOnClassesThat().resideInAPackage("com.sun.jna..")
            .as("the nio backend calls no JNA: it runs where JNA's native library cannot load");

    @ArchTest
    static final ArchRule backendsDoNotKnowEachOther = noClasses()
            .that().resideInAPackage("dev.sockstate.port.epoll..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.port.winsock..", "dev.sockstate.port.nio..");

    @ArchTest
    static final ArchRule theWinsockBackendDoesNotKnowEpoll = noClasses()
            .that().resideInAPackage("dev.sockstate.port.winsock..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.port.epoll..", "dev.sockstate.port.nio..")
            .allowEmptyShould(true);

    @ArchTest
    static final ArchRule theNioBackendKnowsNoNativeBackend = noClasses()
            .that().resideInAPackage("dev.sockstate.port.nio..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.port.epoll..", "dev.sockstate.port.winsock..");

    @ArchTest
    static final ArchRule theNioBackendsOnlyPublicTypeIsTheBackend = classes()
            .that().resideInAPackage("dev.sockstate.port.nio")
            .and().doNotHaveSimpleName("NioBackend")
            .should().notBePublic();

    @ArchTest
    static final ArchRule backendsDoNotKnowTheServer = noClasses()
            .that().resideInAnyPackage("dev.sockstate.port..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.server..");

    @ArchTest
    static final ArchRule theServerKnowsThePortNeverABackend = noClasses()
            .that().resideInAPackage("dev.sockstate.server..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.port.epoll..", "dev.sockstate.port.winsock..",
                    "dev.sockstate.port.nio..");

    @ArchTest
    static final ArchRule whatUserCodeImportsKnowsNothingOfTheEngineOrTheObservers = noClasses()
            .that().resideInAPackage("dev.sockstate.server")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.server.engine..", "dev.sockstate.server.observer..");

    @ArchTest
    static final ArchRule clientSettingsAndRelayKnowNothingOfTheEngineOrTheObservers = noClasses()
            .that().resideInAPackage("dev.sockstate.server.client")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.server.engine..", "dev.sockstate.server.observer..",
                    "dev.sockstate.port..");

    @ArchTest
    static final ArchRule framingKnowsOnlyBytes = noClasses()
            .that().resideInAPackage("dev.sockstate.server.framing")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.server", "dev.sockstate.server.engine..",
                    "dev.sockstate.server.observer..", "dev.sockstate.port..");

    @ArchTest
    static final ArchRule tlsSettingsKnowOnlyTheJdk = noClasses()
            .that().resideInAPackage("dev.sockstate.server.tls")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.server", "dev.sockstate.server.engine..",
                    "dev.sockstate.server.observer..", "dev.sockstate.server.framing..", "dev.sockstate.port..");

    @ArchTest
    static final ArchRule proxyProtocolSettingsKnowOnlyTheJdk = noClasses()
            .that().resideInAPackage("dev.sockstate.server.proxy")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.server", "dev.sockstate.server.engine..",
                    "dev.sockstate.server.observer..", "dev.sockstate.server.framing..", "dev.sockstate.server.tls..", "dev.sockstate.port..");

    @ArchTest
    static final ArchRule admissionRulesKnowOnlyTheJdk = noClasses()
            .that().resideInAPackage("dev.sockstate.server.admission")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.server", "dev.sockstate.server.engine..",
                    "dev.sockstate.server.observer..", "dev.sockstate.server.proxy..", "dev.sockstate.server.framing..",
                    "dev.sockstate.server.tls..", "dev.sockstate.port..");

    @ArchTest
    static final ArchRule shapingRatesKnowOnlyTheJdk = noClasses()
            .that().resideInAPackage("dev.sockstate.server.shaping")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.server", "dev.sockstate.server.engine..",
                    "dev.sockstate.server.observer..", "dev.sockstate.server.admission..", "dev.sockstate.server.proxy..",
                    "dev.sockstate.server.framing..", "dev.sockstate.server.tls..", "dev.sockstate.port..");

    @ArchTest
    static final ArchRule theHeartbeatIsAnOrdinaryStage = noClasses()
            .that().resideInAPackage("dev.sockstate.server.heartbeat")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.server.engine..", "dev.sockstate.server.observer..",
                    "dev.sockstate.server.framing..", "dev.sockstate.server.tls..", "dev.sockstate.port..")
            .as("the heartbeat is an ordinary stage: it knows its connection only through its StageContext");

    @ArchTest
    static final ArchRule theProxyStageIsAnOrdinaryStage = noClasses()
            .that().resideInAPackage("dev.sockstate.server.engine.proxy")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.server.engine", "dev.sockstate.server.engine.turn",
                    "dev.sockstate.server.engine.tls", "dev.sockstate.server.framing..", "dev.sockstate.server.tls..")
            .as("the PROXY protocol's stage is an ordinary stage: it knows its connection only through its StageContext");

    @ArchTest
    static final ArchRule theObserverSpiKnowsNothingOfTheEngine = noClasses()
            .that().resideInAPackage("dev.sockstate.server.observer")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.server.engine..", "dev.sockstate.server");

    @ArchTest
    static final ArchRule theEnginesOnlyPublicTypesAreTheServerAndTheEmbeddedConnection = classes()
            .that().resideInAPackage("dev.sockstate.server.engine")
            .and().haveNameNotMatching("dev\\.sockstate\\.server\\.engine\\.(SocketServer|EmbeddedConnection(\\$Builder)?)")
            .should().notBePublic();

    @ArchTest
    static final ArchRule theTurnLayerKnowsNoConnectionHandlerOrStage = noClasses()
            .that().resideInAPackage("dev.sockstate.server.engine.turn")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.server.engine", "dev.sockstate.server.framing..",
                    "dev.sockstate.server.tls..")
            .orShould().dependOnClassesThat().haveNameMatching(
                    "dev\\.sockstate\\.server\\.(Connection|ConnectionHandler|MessageHandler|DatagramHandler|DatagramEndpoint|Stage|StageContext|ListenerSettings)(\\$.*)?");

    @ArchTest
    static final ArchRule theTlsStageIsAnOrdinaryStage = noClasses()
            .that().resideInAPackage("dev.sockstate.server.engine.tls")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.server.engine", "dev.sockstate.server.engine.turn",
                    "dev.sockstate.server.framing..")
            .as("TLS's stage is an ordinary stage: it knows its connection only through its StageContext");

    @ArchTest
    static final ArchRule onlyTheTurnLayerChangesRegistrationsOrDequeues = noClasses()
            .that().resideInAPackage("dev.sockstate.server..").and().resideOutsideOfPackage("dev.sockstate.server.engine.turn")
            .should().callMethod("dev.sockstate.port.NotificationPort", "process", "dev.sockstate.port.RegistrationBatch",
                    "dev.sockstate.port.NotificationBatch", "long")
            .orShould().callMethod("dev.sockstate.port.NotificationPort", "apply", "dev.sockstate.port.RegistrationBatch")
            .as("no class of the server but the turn layer's changes a registration or dequeues");

    @ArchTest
    static final ArchRule aConnectionCallsItsHandlerFromOnePlace = noClasses()
            .that().resideInAPackage("dev.sockstate.server.engine..")
            .and().doNotHaveSimpleName("HandlerCalls").and().doNotHaveSimpleName("RecordingErrors")
            .should().callMethodWhere(DescribedPredicate.describe("a method of ConnectionHandler",
                    (call) -> call.getTargetOwner().isAssignableTo("dev.sockstate.server.ConnectionHandler")))
            .as("the engine calls a connection's handler from HandlerCalls only (RecordingErrors, the embedded harness's"
                    + " wrapper, passes calls on to the handler it wraps)");

    private static final String ENGINE = "dev.sockstate.server.engine.";

    @ArchTest
    static final ArchRule theRouteNeverNamesTheConnection = noClasses()
            .that().haveNameMatching("dev\\.sockstate\\.server\\.engine\\.(Route|Pipeline|Framer|HandlerCalls)(\\$.*)?")
            .should().dependOnClassesThat().haveNameMatching(
                    "dev\\.sockstate\\.server\\.engine\\.(TcpConnection|ClientConnection|Listener|Client|ConnectionProfile)(\\$.*)?")
            .as("the route (its stages, framing and terminal) knows its connection as a RouteHost only, and no listener or client");

    @ArchTest
    static final ArchRule onlyTheProfileMakesTheRoute = noClasses()
            .that().doNotHaveFullyQualifiedName(ENGINE + "ConnectionProfile")
            .should().callConstructorWhere(DescribedPredicate.describe("a constructor of Route, HandlerCalls, Framer or Messages",
                    (call) -> call.getTargetOwner().getName().matches("dev\\.sockstate\\.server\\.engine\\.(Route|HandlerCalls|Framer|Messages)")))
            .as("a listener's or client's route is built once, by its ConnectionProfile");

    @ArchTest
    static final ArchRule theFramerOwnsItsState = noClasses()
            .that().doNotHaveFullyQualifiedName(ENGINE + "Framer").and().doNotHaveFullyQualifiedName(ENGINE + "TcpConnection")
            .should().callMethodWhere(DescribedPredicate.describe("a framing slot of the connection",
                    (call) -> call.getTargetOwner().isAssignableTo(ENGINE + "RouteHost") && call.getName().startsWith("framing")))
            .as("what the framing keeps for a connection (its framing* slots) is touched by the Framer alone");

    @ArchTest
    static final ArchRule theWritePathKnowsNoStageFramingOrHandler = noClasses()
            .that().haveFullyQualifiedName(ENGINE + "WritePath").or().haveFullyQualifiedName(ENGINE + "WriteQueue")
            .should().dependOnClassesThat().haveNameMatching(
                    "dev\\.sockstate\\.server\\.engine\\.(Route|Pipeline|Framer|HandlerCalls|Messages)(\\$.*)?")
            .orShould().dependOnClassesThat().resideInAnyPackage("dev.sockstate.server.engine.tls", "dev.sockstate.server.framing..")
            .as("the write path sends and queues bytes: it knows no stage, framing or handler (the connection passes bytes to it)");

    @ArchTest
    static final ArchRule theHarnessInMemoryKnowsNoEngine = noClasses()
            .that().resideInAPackage("dev.sockstate.server.engine.embedded")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.server.engine", "dev.sockstate.server.engine.turn",
                    "dev.sockstate.server.engine.tls", "dev.sockstate.server.framing..", "dev.sockstate.server.observer..");

    @ArchTest
    static final ArchRule onlyTheEmbeddedConnectionRunsOnTheHarnessInMemory = noClasses()
            .that().resideOutsideOfPackage("dev.sockstate.server.engine.embedded")
            .and().doNotHaveFullyQualifiedName(ENGINE + "EmbeddedConnection")
            .should().dependOnClassesThat().resideInAPackage("dev.sockstate.server.engine.embedded");

    @ArchTest
    static final ArchRule theEnginesInternalPackagesAreClosedToTheRestOfTheCore = noClasses()
            .that().resideOutsideOfPackage("dev.sockstate.server.engine..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.sockstate.server.engine.turn..", "dev.sockstate.server.engine.tls..",
                    "dev.sockstate.server.engine.proxy..", "dev.sockstate.server.engine.embedded..")
            .as("the engine's internal packages (its turn layer, TLS and PROXY stages, harness in memory) are public for the engine's"
                    + " packages only: no other package of the core, and no other module (each module's layering test says so), uses them");

    @ArchTest
    static final ArchRule noTwoPackagesDependOnEachOther = slices().matching("dev.sockstate.(**)").should().beFreeOfCycles();

    @ArchTest
    static final ArchRule noClassExtendsAChainOfMoreThanTwoOfTheProjectsOwnClasses = classes()
            .that().resideInAPackage("dev.sockstate..")
            .should(new ArchCondition<JavaClass>("extend at most two of the project's own classes") {
                @Override
                public void check(JavaClass item, ConditionEvents events) {
                    List<String> own = item.getAllRawSuperclasses().stream().filter((above) -> above.getPackageName().startsWith("dev.sockstate"))
                            .map(JavaClass::getSimpleName).toList();
                    if (own.size() > 2) {
                        events.add(SimpleConditionEvent.violated(item, item.getName() + " extends " + String.join(", ", own)));
                    }
                }
            })
            .as("a class holds its concern itself or in parts it is given: no class extends a chain of more than two of the"
                    + " project's own classes (a connection is a TcpConnection on a SocketTurn, a client's one subclass more)");

    @ArchTest
    static final ArchRule theCoreKnowsNoSpring = noClasses()
            .should().dependOnClassesThat().resideInAPackage("org.springframework..");
}
