package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A network namespace of a test's own, joined to the host's by a veth pair: {@code 10.<net>.<n>.1/30}
 * (and, when asked, {@code fd00:<net>:<n>::1/64}) on the host's side, {@code .2} (and {@code ::2}) on the
 * far side, both up. Needs Linux, root and iproute2 ({@code ip}): skipped without them, failed in CI on
 * Linux, which has them. Closing it ends the programs it started and removes the namespace and the pair.
 */
final class VethNamespace implements AutoCloseable {

    private final String namespace;

    private final String hostSide;

    private final String peerSide;

    private final String prefix;

    private final String prefix6;

    private final List<Process> processes = new ArrayList<>();

    private final int number;

    private VethNamespace(String name, int net, int number) {
        this.number = number;
        this.namespace = "sockstate-" + name + "-" + number;
        this.hostSide = "ss" + name + number + "h";
        this.peerSide = "ss" + name + number + "p";
        this.prefix = "10." + net + "." + number + ".";
        this.prefix6 = "fd00:" + net + ":" + number + "::";
    }

    /**
     * @param name a short word for the names (at most 6 letters: interface names have 15)
     * @param net the second octet of its IPv4 subnet, the test's own
     * @param ipv6 whether both sides get an IPv6 address too
     * @return the namespace, made
     */
    static VethNamespace make(String name, int net, boolean ipv6) throws Exception {
        assumeTrue(System.getProperty("os.name", "").startsWith("Linux"), "network namespaces are Linux's");
        UnixTools.require("ip");
        boolean root = "0".equals(run("id", "-u").trim());
        if (System.getenv("CI") != null) {
            assertThat(root).as("root, to make network namespaces (CI runs as root)").isTrue();
        }
        assumeTrue(root, "network namespaces need root");
        VethNamespace made = new VethNamespace(name, net, ThreadLocalRandom.current().nextInt(20, 250));
        made.remove();
        try {
            made.ip("netns", "add", made.namespace);
            made.ip("link", "add", made.hostSide, "type", "veth", "peer", "name", made.peerSide);
            made.ip("link", "set", made.peerSide, "netns", made.namespace);
            made.ip("addr", "add", made.hostAddress() + "/30", "dev", made.hostSide);
            made.inside("ip", "addr", "add", made.peerAddress() + "/30", "dev", made.peerSide);
            if (ipv6) {
                made.ip("-6", "addr", "add", made.hostAddress6() + "/64", "dev", made.hostSide, "nodad");
                made.inside("ip", "-6", "addr", "add", made.peerAddress6() + "/64", "dev", made.peerSide, "nodad");
            }
            made.ip("link", "set", made.hostSide, "up");
            made.inside("ip", "link", "set", made.peerSide, "up");
            made.inside("ip", "link", "set", "lo", "up");
            return made;
        }
        catch (Exception | AssertionError ex) {
            made.close();
            throw ex;
        }
    }

    /** @return the run's own number, in its names and its subnet (the third octet): another run on the host most likely takes another */
    int number() {
        return this.number;
    }

    /** @return the host side's interface name */
    String hostInterface() {
        return this.hostSide;
    }

    /** @return the far side's interface name, in the namespace */
    String peerInterface() {
        return this.peerSide;
    }

    String hostAddress() {
        return this.prefix + "1";
    }

    String peerAddress() {
        return this.prefix + "2";
    }

    String hostAddress6() {
        return this.prefix6 + "1";
    }

    String peerAddress6() {
        return this.prefix6 + "2";
    }

    /** @param command a program and its arguments, run in the namespace; must end well within 10 s */
    void inside(String... command) throws Exception {
        String[] full = new String[command.length + 4];
        full[0] = "ip";
        full[1] = "netns";
        full[2] = "exec";
        full[3] = this.namespace;
        System.arraycopy(command, 0, full, 4, command.length);
        check(full);
    }

    /**
     * @param input what the program reads on its standard input, closed after it
     * @param command a program and its arguments, started in the namespace, ended with the namespace
     * @return the process
     */
    Process start(String input, String... command) throws Exception {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", this.namespace));
        full.addAll(List.of(command));
        Process process = new ProcessBuilder(full).redirectErrorStream(true).start();
        this.processes.add(process);
        process.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().close();
        return process;
    }

    /**
     * @param command a program and its arguments, started in the namespace with its standard input held
     * open (a client that never closes of itself), ended with the namespace
     * @return the process
     */
    Process startHeld(String... command) throws Exception {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", this.namespace));
        full.addAll(List.of(command));
        Process process = new ProcessBuilder(full).redirectErrorStream(true).start();
        this.processes.add(process);
        return process;
    }

    private void ip(String... arguments) throws Exception {
        String[] command = new String[arguments.length + 1];
        command[0] = "ip";
        System.arraycopy(arguments, 0, command, 1, arguments.length);
        check(command);
    }

    private static void check(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(10, TimeUnit.SECONDS)).as(String.join(" ", command)).isTrue();
        assertThat(process.exitValue()).as(String.join(" ", command) + ": " + output).isZero();
    }

    private static String run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        process.waitFor(10, TimeUnit.SECONDS);
        return output;
    }

    private void remove() throws Exception {
        new ProcessBuilder("ip", "netns", "del", this.namespace).redirectErrorStream(true).start().waitFor(10, TimeUnit.SECONDS);
        new ProcessBuilder("ip", "link", "del", this.hostSide).redirectErrorStream(true).start().waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws Exception {
        for (Process process : this.processes) {
            process.destroyForcibly();
        }
        remove();
    }
}
