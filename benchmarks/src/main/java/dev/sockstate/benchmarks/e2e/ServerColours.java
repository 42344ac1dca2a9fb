package dev.sockstate.benchmarks.e2e;

/**
 * The colour of each server in the charts, fixed by its kind rather than by its place in a run's
 * list, so that a server has the same colour in every chart of every run: sockstate's variants in
 * blues, greens, purples and browns, Netty in orange, the JDK selector server in grey, the C
 * anchors in black and red, the JNA anchor in pink. A new kind does not compile until it is given
 * a colour here.
 */
final class ServerColours {

    private ServerColours() {
    }

    /** @param server a server @return its colour, as {@code #rrggbb} */
    static String of(ServerKind server) {
        return switch (server) {
            case SOCKSTATE -> "#1f77b4";
            case SOCKSTATE_ONESHOT -> "#6baed6";
            case SOCKSTATE_EXCLUSIVE -> "#9467bd";
            case SOCKSTATE_AFFINE -> "#17becf";
            case SOCKSTATE_PER_WORKER -> "#2ca02c";
            case SOCKSTATE_NIO -> "#8c564b";
            case SOCKSTATE_NIO_ONESHOT -> "#c49c94";
            case SOCKSTATE_YIELD -> "#aec7e8";
            case SOCKSTATE_ONESHOT_METRICS -> "#bcbd22";
            case SOCKSTATE_ONESHOT_HISTOGRAM -> "#dbdb8d";
            case SOCKSTATE_TLS -> "#393b79";
            case SOCKSTATE_TLS_OPENSSL -> "#5254a3";
            case SOCKSTATE_ADMISSION -> "#637939";
            case NETTY -> "#ff7f0e";
            case NETTY_TLS -> "#fdae6b";
            case NETTY_TLS_OPENSSL -> "#e6550d";
            case NIO -> "#7f7f7f";
            case C_REUSEPORT -> "#252525";
            case C_ONESHOT -> "#d62728";
            case JNA_REUSEPORT -> "#e377c2";
        };
    }
}
