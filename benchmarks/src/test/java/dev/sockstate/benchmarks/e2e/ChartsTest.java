package dev.sockstate.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayInputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The charts of a run, from made-up samples ({@link FixedSamples}): well-formed SVG with a bar per
 * server per load as tall as its median, each server in its own colour in every chart, and the same
 * bytes from the same figures.
 */
class ChartsTest {

    private static final String SVG = "http://www.w3.org/2000/svg";

    @TempDir
    Path folder;

    @Test
    void everyChartOfWhatRanIsWellFormedSvgWithoutScriptOrExternalReference() throws Exception {
        List<Charts.Chart> charts = charts(FixedSamples.SERVERS);
        assertThat(charts).extracting(Charts.Chart::file).containsExactly("messages.svg", "cpu-per-message.svg", "connections.svg",
                "idle-memory.svg");
        for (Charts.Chart chart : charts) {
            String svg = chart.chart().svg();
            Document document = parse(svg);
            assertThat(document.getDocumentElement().getLocalName()).isEqualTo("svg");
            assertThat(document.getDocumentElement().getNamespaceURI()).isEqualTo(SVG);
            assertThat(document.getDocumentElement().getAttribute("font-family")).isEqualTo("sans-serif");
            assertThat(svg).doesNotContain("<script", "href", "@import", "url(");
            assertThat(texts(document)).as("the title names the unit").contains(chart.title());
        }
    }

    @Test
    void thePingPongChartsHaveOneBarPerServerPerLoad() throws Exception {
        for (Charts.Chart chart : charts(FixedSamples.SERVERS).subList(0, 2)) {
            List<Element> bars = bars(parse(chart.chart().svg()));
            assertThat(bars).hasSize(FixedSamples.SERVERS.size() * FixedSamples.SCENARIOS.size());
            Set<String> pairs = bars.stream().map((bar) -> bar.getAttribute("data-server") + " at " + bar.getAttribute("data-group"))
                    .collect(Collectors.toSet());
            Set<String> expected = new HashSet<>();
            for (ServerKind server : FixedSamples.SERVERS) {
                for (Scenario scenario : FixedSamples.SCENARIOS) {
                    expected.add(server.label + " at " + scenario.name());
                }
            }
            assertThat(pairs).isEqualTo(expected);
        }
    }

    @Test
    void theConnectionAndIdleChartsHaveOneBarPerServer() throws Exception {
        for (Charts.Chart chart : charts(FixedSamples.SERVERS).subList(2, 4)) {
            assertThat(bars(parse(chart.chart().svg()))).extracting((bar) -> bar.getAttribute("data-server"))
                    .containsExactly("netty-epoll", "sockstate", "jdk-nio");
        }
    }

    @Test
    void theTlsComparisonHasSixChartsOfABarPerServerAsTallAsItsMedian() throws Exception {
        List<ServerKind> servers = List.of(ServerKind.SOCKSTATE_TLS, ServerKind.NETTY_TLS);
        Map<ServerKind, List<TlsComparison.Figures>> figures = new EnumMap<>(ServerKind.class);
        figures.put(ServerKind.SOCKSTATE_TLS, List.of(new TlsComparison.Figures(30_000, 40, 200, 5_000, 400, 2_000, 1.0, 5_000, 0, 6_000),
                new TlsComparison.Figures(20_000, 50, 190, 6_000, 400, 2_000, 1.0, 5_000, 0, 6_000),
                new TlsComparison.Figures(25_000, 45, 210, 5_500, 400, 2_000, 1.0, 5_000, 0, 6_000)));
        figures.put(ServerKind.NETTY_TLS, List.of(new TlsComparison.Figures(10_000, 80, 100, 7_000, 400, 2_000, 1.0, 6_000, 500, 9_000)));

        List<Charts.Chart> charts = Charts.tls(servers, figures);

        assertThat(charts).extracting(Charts.Chart::file).containsExactly("tls-messages.svg", "tls-cpu-per-message.svg",
                "tls-connections.svg", "tls-cpu-per-connection.svg", "tls-cpu-per-resumed.svg", "tls-idle-memory.svg");
        for (Charts.Chart chart : charts) {
            List<Element> bars = bars(parse(chart.chart().svg()));
            assertThat(bars).extracting((bar) -> bar.getAttribute("data-server")).containsExactly("sockstate-tls", "netty-epoll-tls");
        }
        List<Element> messages = bars(parse(charts.get(0).chart().svg()));
        assertThat(height(messages.get(0)) / height(messages.get(1))).as("25,000 messages/s against 10,000")
                .isCloseTo(2.5, within(0.05));
        List<Element> idle = bars(parse(charts.get(5).chart().svg()));
        assertThat(height(idle.get(0)) / height(idle.get(1))).as("heap and native: 5,000 bytes against 6,500")
                .isCloseTo(5_000.0 / 6_500, within(0.02));
    }

    @Test
    void theTallestBarIsTheLargestMedianAndTheBarsRankAsTheirMedians() throws Exception {
        Samples samples = FixedSamples.of(this.folder.resolve("samples.csv"));
        Charts.Chart messages = Charts.of(samples, FixedSamples.SERVERS, FixedSamples.SCENARIOS).get(0);
        List<Element> bars = bars(parse(messages.chart().svg()));
        Map<String, Double> medians = new HashMap<>();
        for (ServerKind server : FixedSamples.SERVERS) {
            for (Scenario scenario : FixedSamples.SCENARIOS) {
                medians.put(server.label + " at " + scenario.name(),
                        samples.throughput(server, scenario, PingPong.Result::messagesPerSecond).median());
            }
        }
        Element tallest = bars.stream().max(Comparator.comparingDouble(ChartsTest::height)).orElseThrow();
        assertThat(tallest.getAttribute("data-server") + " at " + tallest.getAttribute("data-group")).isEqualTo("sockstate at c256 64B")
                .isEqualTo(medians.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey());
        List<String> byHeight = bars.stream().sorted(Comparator.comparingDouble(ChartsTest::height))
                .map((bar) -> bar.getAttribute("data-server") + " at " + bar.getAttribute("data-group")).toList();
        List<String> byMedian = medians.entrySet().stream().sorted(Map.Entry.comparingByValue()).map(Map.Entry::getKey).toList();
        assertThat(byHeight).isEqualTo(byMedian);
        double perUnit = height(tallest) / medians.get("sockstate at c256 64B");
        for (Element bar : bars) {
            double median = medians.get(bar.getAttribute("data-server") + " at " + bar.getAttribute("data-group"));
            assertThat(height(bar)).as("a bar's height is proportional to its median").isCloseTo(median * perUnit, within(0.2));
        }
    }

    @Test
    void aBarWhoseRoundsDifferHasAWhiskerFromTheLowestToTheHighest() throws Exception {
        Document document = parse(charts(FixedSamples.SERVERS).get(0).chart().svg());
        assertThat(elements(document, "path").stream().filter((path) -> path.getAttribute("class").equals("whisker")))
                .hasSize(FixedSamples.SERVERS.size() * FixedSamples.SCENARIOS.size());
    }

    @Test
    void eachServerHasItsOwnColourWhateverTheChartAndTheOrder() throws Exception {
        List<ServerKind> reversed = new ArrayList<>(FixedSamples.SERVERS);
        Collections.reverse(reversed);
        Map<ServerKind, String> seen = new EnumMap<>(ServerKind.class);
        for (List<ServerKind> servers : List.of(FixedSamples.SERVERS, reversed, List.of(ServerKind.SOCKSTATE))) {
            for (Charts.Chart chart : charts(servers)) {
                for (Element bar : bars(parse(chart.chart().svg()))) {
                    ServerKind server = ServerKind.parse(bar.getAttribute("data-server"));
                    assertThat(bar.getAttribute("fill")).isEqualTo(ServerColours.of(server));
                    seen.putIfAbsent(server, bar.getAttribute("fill"));
                    assertThat(seen.get(server)).as(server.label + " in " + chart.file()).isEqualTo(bar.getAttribute("fill"));
                }
            }
        }
        assertThat(seen).containsOnlyKeys(ServerKind.NETTY, ServerKind.SOCKSTATE, ServerKind.NIO);
        Set<String> colours = new HashSet<>();
        for (ServerKind server : ServerKind.values()) {
            assertThat(colours.add(ServerColours.of(server))).as("a colour of its own for " + server.label).isTrue();
        }
    }

    @Test
    void theSameFiguresGiveTheSameBytes() throws Exception {
        List<Charts.Chart> first = Charts.of(FixedSamples.of(this.folder.resolve("first.csv")), FixedSamples.SERVERS,
                FixedSamples.SCENARIOS);
        List<Charts.Chart> second = Charts.of(FixedSamples.of(this.folder.resolve("second.csv")), FixedSamples.SERVERS,
                FixedSamples.SCENARIOS);
        assertThat(second).hasSameSizeAs(first);
        for (int i = 0; i < first.size(); i++) {
            assertThat(second.get(i).chart().svg().getBytes(StandardCharsets.UTF_8))
                    .isEqualTo(first.get(i).chart().svg().getBytes(StandardCharsets.UTF_8));
        }
    }

    @Test
    void theValueAxisHasAFewRoundTicksFromZeroPastTheLargestValue() {
        BarChart.Axis messages = BarChart.Axis.of(0, 3_320_236);
        assertThat(messages.ticks()).extracting(messages::label).containsExactly("0", "1M", "2M", "3M", "4M");
        BarChart.Axis cpu = BarChart.Axis.of(0, 24.1);
        assertThat(cpu.ticks()).extracting(cpu::label).containsExactly("0", "5", "10", "15", "20", "25");
        BarChart.Axis connections = BarChart.Axis.of(0, 21_420);
        assertThat(connections.ticks()).extracting(connections::label).containsExactly("0", "5k", "10k", "15k", "20k", "25k");
        BarChart.Axis small = BarChart.Axis.of(0, 0.31);
        assertThat(small.ticks()).extracting(small::label).containsExactly("0", "0.1", "0.2", "0.3", "0.4");
        BarChart.Axis nothing = BarChart.Axis.of(0, 0);
        assertThat(nothing.high()).isGreaterThan(BigDecimal.ZERO);
    }

    private List<Charts.Chart> charts(List<ServerKind> servers) throws Exception {
        Samples samples = FixedSamples.of(this.folder.resolve("samples-" + servers.size() + "-" + servers.get(0).label + ".csv"));
        return Charts.of(samples, servers, FixedSamples.SCENARIOS);
    }

    private static Document parse(String svg) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return factory.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    private static List<Element> elements(Document document, String name) {
        NodeList nodes = document.getElementsByTagNameNS(SVG, name);
        List<Element> elements = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            elements.add((Element) nodes.item(i));
        }
        return elements;
    }

    private static List<Element> bars(Document document) {
        return elements(document, "rect").stream().filter((rect) -> rect.getAttribute("class").equals("bar")).toList();
    }

    private static List<String> texts(Document document) {
        return elements(document, "text").stream().map(Element::getTextContent).toList();
    }

    private static double height(Element bar) {
        return Double.parseDouble(bar.getAttribute("height"));
    }
}
