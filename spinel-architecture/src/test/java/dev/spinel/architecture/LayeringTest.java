package dev.spinel.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The layering of Spinel's main code, as rules that fail the build. From the bottom up:
 * protocol (RESP, command metadata, number parsing) and store (the keyspace and its types) know
 * nothing of ours above them; persistence (the RDB format) reads and writes the store; the server
 * (engine, commands by family, front end, durability) uses them all; gRPC and the client sit on top,
 * and the client talks to a server only through the wire. See docs/architecture.md.
 */
class LayeringTest {
    private static final int MAX_CLASSES_PER_PACKAGE = 30;
    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.spinel");
    }

    @Test
    void sanityTheImportSeesEveryModule() {
        for (String p : new String[]{"dev.spinel.protocol", "dev.spinel.store", "dev.spinel.persistence",
                "dev.spinel.server", "dev.spinel.grpc", "dev.spinel.client"}) {
            assertTrue(main.containPackage(p), p + " not imported, so the rules below would check nothing");
        }
    }

    /**
     * No two packages depend on each other, directly or around a loop. One pair is one unit on purpose:
     * the client's {@code internal} package implements the types of its public API package (an API and
     * implementation split by visibility, not a layer), so its uses of the API package are not counted.
     */
    @Test
    void noPackageCycles() {
        slices().matching("dev.spinel.(**)").should().beFreeOfCycles()
                .ignoreDependency(resideInAPackage("dev.spinel.client.internal.."), resideInAPackage("dev.spinel.client"))
                .check(main);
    }

    @Test
    void protocolUsesNothingOfOurs() {
        ArchRule rule = noClasses().that().resideInAPackage("dev.spinel.protocol..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "dev.spinel.store..", "dev.spinel.persistence..", "dev.spinel.server..",
                        "dev.spinel.grpc..", "dev.spinel.client..", "dev.spinel.bench..");
        rule.check(main);
    }

    @Test
    void storeKnowsNothingOfTheServerOrTheNetwork() {
        noClasses().that().resideInAPackage("dev.spinel.store..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "dev.spinel.persistence..", "dev.spinel.server..", "dev.spinel.grpc..",
                        "dev.spinel.client..", "io.netty..")
                .check(main);
    }

    @Test
    void rdbFormatKnowsNothingOfTheServer() {
        noClasses().that().resideInAPackage("dev.spinel.persistence..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "dev.spinel.server..", "dev.spinel.grpc..", "dev.spinel.client..")
                .check(main);
    }

    @Test
    void clientTalksToAServerOnlyThroughTheWire() {
        noClasses().that().resideInAPackage("dev.spinel.client..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "dev.spinel.server..", "dev.spinel.store..", "dev.spinel.persistence..", "dev.spinel.grpc..")
                .check(main);
    }

    @Test
    void engineDoesNotKnowItsCommandsOrFrontEnds() {
        noClasses().that().resideInAPackage("dev.spinel.server.engine..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "dev.spinel.server.commands..", "dev.spinel.server.net..", "dev.spinel.server.durability..",
                        "dev.spinel.server.scripting..", "dev.spinel.grpc..")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.spinel.server.SpinelServer")
                .check(main);
    }

    @Test
    void commandsDoNotKnowTheServerOrTheFrontEnd() {
        noClasses().that().resideInAPackage("dev.spinel.server.commands..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.spinel.server.net..", "dev.spinel.grpc..")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.spinel.server.SpinelServer")
                .check(main);
    }

    /**
     * gRPC writes and reads through the engine, never around it: no stripe locks, segments or command
     * helpers of its own.
     */
    @Test
    void grpcGoesThroughTheEngine() {
        noClasses().that().resideInAPackage("dev.spinel.grpc..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.spinel.server.commands..")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.spinel.store.Segment")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.spinel.store.StripeLocks")
                .check(main);
    }

    /**
     * A package a newcomer can take in: at most {@value #MAX_CLASSES_PER_PACKAGE} top-level classes in the
     * core modules' packages. The engine is the largest; the parts of it that need of a session only a few of
     * its methods live in subpackages and see the session through a narrow interface it implements
     * ({@code engine.clients.Client}, {@code engine.pubsub.Subscriber}, {@code engine.tracking.TrackedClient}),
     * so they depend on nothing of the engine and no cycle forms.
     */
    @Test
    void noPackageIsAHeap() {
        Map<String, Long> big = new TreeMap<>(main.stream()
                .filter(c -> c.isTopLevelClass())
                .filter(c -> c.getPackageName().matches("dev\\.spinel\\.(protocol|store|persistence|server)(\\..*)?"))
                .collect(Collectors.groupingBy(JavaClass::getPackageName, Collectors.counting())));
        big.values().removeIf(n -> n <= MAX_CLASSES_PER_PACKAGE);
        assertEquals(Map.of(), big, "packages over " + MAX_CLASSES_PER_PACKAGE + " top-level classes: split them by role");
    }
}
