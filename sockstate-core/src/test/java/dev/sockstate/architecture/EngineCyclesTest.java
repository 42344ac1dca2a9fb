package dev.sockstate.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The engine's classes as a graph, from the code's own dependencies (a nested class counts as the
 * file it is in): within each of the engine's packages, no cycle of classes passes through more than
 * 3 files, and few pairs of the engine's own classes name each other, so that a change to how bytes,
 * replies or requests travel is made in a few files, whose order the layers tell.
 */
class EngineCyclesTest {

    private static final String ENGINE = "dev.sockstate.server.engine";

    /** For each package under the engine, each file's dependencies on the other files of that package. */
    private static Map<String, Map<String, Set<String>>> graphs;

    @BeforeAll
    static void importTheEngine() {
        JavaClasses classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages(ENGINE);
        graphs = new TreeMap<>();
        for (JavaClass type : classes) {
            String from = file(type);
            Map<String, Set<String>> graph = graphs.computeIfAbsent(type.getPackageName(), (name) -> new TreeMap<>());
            Set<String> targets = graph.computeIfAbsent(from, (name) -> new TreeSet<>());
            for (Dependency dependency : type.getDirectDependenciesFromSelf()) {
                JavaClass target = dependency.getTargetClass();
                String to = file(target);
                if (target.getPackageName().equals(type.getPackageName()) && !to.equals(from) && to.startsWith(ENGINE)) {
                    targets.add(to);
                }
            }
        }
    }

    @Test
    void noCycleOfEngineClassesPassesThroughMoreThanThreeFiles() {
        List<String> tooLong = new ArrayList<>();
        graphs.forEach((pkg, graph) -> {
            for (Set<String> component : components(graph)) {
                if (component.size() > 3) {
                    tooLong.add(pkg + ": " + component.size() + " files " + simpleNames(component));
                }
            }
        });
        assertThat(tooLong).as("classes of one package that all reach each other").isEmpty();
    }

    @Test
    void atMostFivePairsOfTheEnginesOwnClassesNameEachOther() {
        List<String> pairs = new ArrayList<>();
        Map<String, Set<String>> graph = graphs.get(ENGINE);
        graph.forEach((from, targets) -> {
            for (String to : targets) {
                if (from.compareTo(to) < 0 && graph.getOrDefault(to, Set.of()).contains(from)) {
                    pairs.add(simple(from) + " <-> " + simple(to));
                }
            }
        });
        assertThat(pairs).as("pairs of engine classes that name each other").hasSizeLessThanOrEqualTo(5);
    }

    @Test
    void theRouteTheTurnLayerAndTheRequestsAreNotInACycleWithTheConnection() {
        Map<String, Set<String>> engine = graphs.get(ENGINE);
        for (Set<String> component : components(engine)) {
            if (component.contains(ENGINE + ".TcpConnection")) {
                assertThat(simpleNames(component)).as("what shares a cycle with the connection")
                        .doesNotContain("Route", "Pipeline", "Framer", "HandlerCalls", "ConnectionProfile", "Listener", "Client",
                                "ClientLink", "ClientRequest", "Connector", "ConnectionExtras");
            }
        }
    }

    /** @return the strongly connected components of the graph (Tarjan's algorithm, without recursion) */
    private static List<Set<String>> components(Map<String, Set<String>> graph) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<Set<String>> found = new ArrayList<>();
        int[] counter = { 0 };
        for (String start : graph.keySet()) {
            if (index.containsKey(start)) {
                continue;
            }
            Deque<Object[]> work = new ArrayDeque<>();
            work.push(new Object[] { start, new ArrayList<>(graph.getOrDefault(start, Set.of())).iterator() });
            index.put(start, counter[0]);
            low.put(start, counter[0]++);
            stack.push(start);
            onStack.add(start);
            while (!work.isEmpty()) {
                Object[] frame = work.peek();
                String node = (String) frame[0];
                @SuppressWarnings("unchecked")
                java.util.Iterator<String> next = (java.util.Iterator<String>) frame[1];
                if (next.hasNext()) {
                    String to = next.next();
                    if (!index.containsKey(to)) {
                        index.put(to, counter[0]);
                        low.put(to, counter[0]++);
                        stack.push(to);
                        onStack.add(to);
                        work.push(new Object[] { to, new ArrayList<>(graph.getOrDefault(to, Set.of())).iterator() });
                    }
                    else if (onStack.contains(to)) {
                        low.put(node, Math.min(low.get(node), index.get(to)));
                    }
                    continue;
                }
                work.pop();
                if (!work.isEmpty()) {
                    String parent = (String) work.peek()[0];
                    low.put(parent, Math.min(low.get(parent), low.get(node)));
                }
                if (low.get(node).equals(index.get(node))) {
                    Set<String> component = new TreeSet<>();
                    String member;
                    do {
                        member = stack.pop();
                        onStack.remove(member);
                        component.add(member);
                    }
                    while (!member.equals(node));
                    found.add(component);
                }
            }
        }
        return found;
    }

    /** @return the top-level class a class is written in */
    private static String file(JavaClass type) {
        JavaClass top = type;
        while (top.getEnclosingClass().isPresent()) {
            top = top.getEnclosingClass().get();
        }
        return top.getName();
    }

    private static String simple(String name) {
        return name.substring(name.lastIndexOf('.') + 1);
    }

    private static List<String> simpleNames(Set<String> names) {
        return names.stream().map(EngineCyclesTest::simple).toList();
    }
}
