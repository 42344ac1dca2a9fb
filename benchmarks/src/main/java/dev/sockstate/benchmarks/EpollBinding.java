package dev.sockstate.benchmarks;

import dev.sockstate.port.Backend;
import dev.sockstate.port.Backends;

/** The epoll backend on the binding a benchmark's parameter names, chosen once a process. */
final class EpollBinding {

    private EpollBinding() {
    }

    /**
     * @param binding {@code ffm} or {@code jna}, set as {@code sockstate.epoll.binding} before the backend is first asked
     * @return the epoll backend on that binding
     * @throws IllegalStateException when it runs on the other one (a JVM that asked earlier, or FFM not available)
     */
    static Backend select(String binding) {
        System.setProperty("sockstate.epoll.binding", binding);
        Backend epoll = Backends.select("epoll");
        if (!epoll.availability().reason().contains(binding.equals("ffm") ? "FFM binding" : "JNA")) {
            throw new IllegalStateException("epoll is not on the " + binding + " binding: " + epoll.availability().reason());
        }
        return epoll;
    }
}
