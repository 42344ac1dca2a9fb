package dev.sockstate.port.winsock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.sockstate.port.Backend;
import dev.sockstate.port.Events;
import dev.sockstate.port.NativeBuffer;
import dev.sockstate.port.NativeError;
import dev.sockstate.port.NativeIoException;
import dev.sockstate.port.NativeSocketOption;
import dev.sockstate.port.NativeSockets;
import dev.sockstate.port.NotificationBatch;
import dev.sockstate.port.NotificationPort;
import dev.sockstate.port.PortTestSupport;
import dev.sockstate.port.Protocol;
import dev.sockstate.port.SocketAddressLayout;
import dev.sockstate.port.RegistrationBatch;
import dev.sockstate.port.Trigger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.StandardProtocolFamily;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The emulator's strict mode, rule by rule (R1 to R9 at the top of {@code winsock_emulator.c}):
 * Windows as documented where it differs from epoll, and its test hooks. Each test fails on the
 * lenient, epoll-like mode (run with {@code SOCKSTATE_WINSOCK_EMULATOR=lenient} to see it), except
 * where it says otherwise. The tests run in the mode read from the environment: strict unless told.
 */
@EnabledIfSystemProperty(named = WinsockBackend.LIBRARY_PROPERTY, matches = ".+",
        disabledReason = "the Winsock emulator is built on Linux only")
class WinsockEmulatorRulesTest extends PortTestSupport {

    private final WinsockEmulator emulator = WinsockEmulator.load();

    @Override
    protected Backend backend() {
        return new WinsockBackend();
    }

    @AfterEach
    void resetTheEmulator() {
        this.emulator.emu_reset();
    }

    // ---- R1: an edge for a change after the enable, raised again once drained to would-block ----

    @Test
    void anEdgeRegistrationEnabledOverUnreadDataNotifiesNothingUntilDrainedToWouldBlock() throws Exception {
        Connection connection = withDataArrived("early");
        register(connection.handle(), Events.IN, Trigger.EDGE_PERSISTENT);
        assertThat(dequeueFor(SETTLE_MILLIS)).as("no edge for data that arrived before the enable").isEmpty();
        connection.send("late");
        assertThat(dequeueFor(SETTLE_MILLIS)).as("no edge while data is unread").isEmpty();
        assertThat(drain(connection.handle())).isEqualTo("earlylate");
        connection.send("next");
        assertThat(awaitEvents(KEY)).as("drained to would-block, new data is an edge").isEqualTo(Events.IN);
    }

    @Test
    void newDataWhileEarlierDataIsUnreadRaisesNoSecondEdge() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.EDGE_PERSISTENT);
        connection.send("one");
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
        connection.send("two");
        assertThat(dequeueFor(SETTLE_MILLIS)).as("'one' is unread").isEmpty();
        assertThat(drain(connection.handle())).isEqualTo("onetwo");
        connection.send("three");
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
    }

    @Test
    void readingEverythingWithoutMeetingWouldBlockLeavesTheEdgeUnarmed() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.EDGE_PERSISTENT);
        connection.send("abc");
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
        NativeBuffer exact = this.sockets.allocate(3);
        assertThat(this.sockets.recv(connection.handle(), exact)).as("all of it, and no would-block").isEqualTo(3);
        connection.send("def");
        assertThat(dequeueFor(SETTLE_MILLIS)).as("no would-block was seen: the edge is not armed again").isEmpty();
        assertThat(drain(connection.handle())).isEqualTo("def");
        connection.send("ghi");
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
    }

    @Test
    void anEdgeRegistrationOnAWritableSocketGetsNoOutUntilASendWouldBlock() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.OUT, Trigger.EDGE_PERSISTENT);
        assertThat(dequeueFor(SETTLE_MILLIS)).as("writable before the enable: no edge").isEmpty();
    }

    @Test
    void aConnectCompletingAfterTheEnableIsAnOutEdge() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            long client = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
            this.handles.add(client);
            register(client, Events.OUT, Trigger.EDGE_PERSISTENT);
            assertThat(dequeueFor(SETTLE_MILLIS)).as("a socket not yet connecting is not writable").isEmpty();
            this.sockets.connect(client, new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()));
            assertThat(awaitEvents(KEY)).isEqualTo(Events.OUT);
        }
    }

    // ---- R2, R3: queued notifications are delivered as queued, after DISABLE and close too ------

    @Test
    void aLevelNotificationQueuedBeforeTheDataWasReadIsDeliveredStale() throws Exception {
        Connection connection = withDataArrived("x");
        register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        assertThat(drain(connection.handle())).isEqualTo("x");
        assertThat(awaitEvents(KEY)).as("queued while readable, delivered though read since").isEqualTo(Events.IN);
        assertThat(this.sockets.recv(connection.handle(), this.sockets.allocate(8))).isEqualTo(NativeSockets.WOULD_BLOCK);
    }

    @Test
    void aNotificationQueuedBeforeADisableIsDeliveredAfterIt() throws Exception {
        Connection connection = withDataArrived("x");
        register(connection.handle(), Events.IN, Trigger.LEVEL_PERSISTENT);
        RegistrationBatch disable = new RegistrationBatch(1);
        disable.disable(connection.handle(), KEY);
        this.port.apply(disable);
        assertThat(disable.failed(0)).isFalse();
        drain(connection.handle());
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
        assertThat(dequeueFor(SETTLE_MILLIS)).as("then nothing: disabled").isEmpty();
    }

    /** Not a change from the lenient mode, which delivers it too when the pump queued it in time. */
    @Test
    void aNotificationQueuedBeforeTheSocketIsClosedIsDeliveredAndNoRemoveFollows() throws Exception {
        Connection connection = withDataArrived("x");
        register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        this.sockets.close(connection.handle());
        this.handles.remove(connection.handle());
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
        assertThat(dequeueFor(SETTLE_MILLIS)).as("closing deregisters without REMOVE").isEmpty();
    }

    // ---- R4: REMOVE joins what is queued -------------------------------------------------------

    @Test
    void aRemoveAfterAQueuedInComesJoinedWithItInOneNotification() throws Exception {
        Connection connection = withDataArrived("x");
        register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        RegistrationBatch remove = new RegistrationBatch(1);
        remove.remove(connection.handle(), KEY);
        this.port.apply(remove);
        assertThat(remove.failed(0)).isFalse();
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN | Events.REMOVE);
        assertThat(dequeueFor(SETTLE_MILLIS)).as("nothing after the REMOVE").isEmpty();
    }

    // ---- R5, R6: errors ------------------------------------------------------------------------

    @Test
    void soErrorReadsNothingAfterErrWhileRecvReportsTheReset() throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        connection.peer().setSoLinger(true, 0);
        connection.peer().close();
        assertThat(awaitEvents(KEY) & Events.ERR).isEqualTo(Events.ERR);
        assertThat(this.sockets.takeError(connection.handle())).as("SO_ERROR after ERR").isNull();
        assertThatExceptionOfType(NativeIoException.class)
                .isThrownBy(() -> this.sockets.recv(connection.handle(), this.sockets.allocate(16)))
                .satisfies((ex) -> assertThat(ex.error()).isEqualTo(NativeError.CONNECTION_RESET));
    }

    @Test
    void aRefusedConnectNotifiesErrWithoutOutAndRecvReportsIt() throws Exception {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = probe.getLocalPort();
        }
        long client = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        this.handles.add(client);
        assertThat(this.sockets.connect(client, new InetSocketAddress(InetAddress.getLoopbackAddress(), closedPort))).isFalse();
        register(client, Events.OUT, Trigger.LEVEL_ONESHOT);
        assertThat(awaitEvents(KEY)).isEqualTo(Events.ERR);
        assertThat(this.sockets.takeError(client)).isNull();
        assertThatExceptionOfType(NativeIoException.class).isThrownBy(() -> this.sockets.recv(client, this.sockets.allocate(16)))
                .satisfies((ex) -> assertThat(ex.error()).isEqualTo(NativeError.CONNECTION_REFUSED));
    }

    // ---- R8: an enable with no events ------------------------------------------------------------

    @Test
    void anEnableWithAnEmptyFilterIsRefusedAndDisableIsTheWayToWatchNothing() throws Exception {
        Connection connection = connect();
        RegistrationBatch batch = new RegistrationBatch(2);
        batch.enable(connection.handle(), KEY, 0, Trigger.LEVEL_ONESHOT);
        this.port.apply(batch);
        assertThat(batch.failed(0)).as("an enable with no events").isTrue();
        assertThat(batch.error(0)).isEqualTo(NativeError.INVALID_ARGUMENT);
        register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        batch.clear();
        batch.disable(connection.handle(), KEY);
        this.port.apply(batch);
        assertThat(batch.failed(0)).isFalse();
    }

    // ---- R7: binding ---------------------------------------------------------------------------

    @Test
    void aSecondSocketWithSoReuseaddrBindsAPortListenedOnByASocketThatSetItToo() throws Exception {
        long first = listening(NativeSocketOption.REUSE_ADDRESS, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        InetSocketAddress taken = (InetSocketAddress) this.sockets.localAddress(first);
        long second = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        this.handles.add(second);
        reuseAddress(second);
        bind(second, taken);
        this.sockets.listen(second, 8);
        assertThat(this.sockets.localAddress(second)).isEqualTo(taken);
    }

    @Test
    void aWildcardAndASpecificAddressShareAPortWithoutOptions() throws Exception {
        long first = listening(null, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        int port = ((InetSocketAddress) this.sockets.localAddress(first)).getPort();
        long second = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        this.handles.add(second);
        bind(second, new InetSocketAddress(port));
    }

    /** Passes in the lenient mode too (Linux shares no listening port); the old emulator refused the option. */
    @Test
    void soExclusiveaddruseRefusesEveryOtherBindOfItsPortWithAddressInUse() throws Exception {
        long first = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        this.handles.add(first);
        setExclusive(first);
        bind(first, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.sockets.listen(first, 8);
        InetSocketAddress taken = (InetSocketAddress) this.sockets.localAddress(first);
        assertThat(bindRefusal(NativeSocketOption.REUSE_ADDRESS, taken)).isEqualTo(WsaError.WSAEADDRINUSE);
        assertThat(bindRefusal(null, new InetSocketAddress(taken.getPort()))).as("the wildcard address").isEqualTo(WsaError.WSAEADDRINUSE);
        long exclusive = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        this.handles.add(exclusive);
        setExclusive(exclusive);
        assertThatExceptionOfType(NativeIoException.class).isThrownBy(() -> bind(exclusive, taken))
                .satisfies((ex) -> assertThat(ex.error()).isEqualTo(NativeError.ADDRESS_IN_USE));
    }

    /** Passes in the lenient mode too, where Linux refuses it. */
    @Test
    void aSocketWithSoExclusiveaddruseCannotBindAPortInUse() throws Exception {
        long first = listening(NativeSocketOption.REUSE_ADDRESS, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        long second = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        this.handles.add(second);
        setExclusive(second);
        assertThatExceptionOfType(NativeIoException.class).isThrownBy(() -> bind(second, (InetSocketAddress) this.sockets.localAddress(first)))
                .satisfies((ex) -> assertThat(ex.error()).isEqualTo(NativeError.ADDRESS_IN_USE));
    }

    /** The two options exclude each other on Windows, in both modes of the emulator. */
    @Test
    void soReuseaddrAndSoExclusiveaddruseExcludeEachOther() throws Exception {
        long socket = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        this.handles.add(socket);
        reuseAddress(socket);
        NativeBuffer one = intValue(1);
        assertThat(calls().setsockopt(socket, WinsockNative.SOL_SOCKET, WinsockNative.SO_EXCLUSIVEADDRUSE, one.address(), 4))
                .isEqualTo(WinsockNative.SOCKET_ERROR);
        assertThat(calls().lastError()).isEqualTo(WsaError.WSAEINVAL);
    }

    // ---- R9: AF_UNIX has stream sockets only, whose path is no port (in both modes) -----------------

    @Test
    void afUnixOpensStreamSocketsOnlyWithProtocolZero() {
        int flags = WinsockNative.WSA_FLAG_OVERLAPPED | WinsockNative.WSA_FLAG_NO_HANDLE_INHERIT;
        assertThat(calls().WSASocketW(WinsockNative.AF_UNIX, WinsockNative.SOCK_DGRAM, 0, 0, 0, flags)).isEqualTo(WinsockNative.INVALID_SOCKET);
        assertThat(calls().lastError()).isEqualTo(WsaError.WSAESOCKTNOSUPPORT);
        assertThat(calls().WSASocketW(WinsockNative.AF_UNIX, WinsockNative.SOCK_STREAM, WinsockNative.IPPROTO_TCP, 0, 0, flags))
                .isEqualTo(WinsockNative.INVALID_SOCKET);
        long stream = calls().WSASocketW(WinsockNative.AF_UNIX, WinsockNative.SOCK_STREAM, 0, 0, 0, flags);
        assertThat(stream).isNotEqualTo(WinsockNative.INVALID_SOCKET);
        this.handles.add(stream);
    }

    // ---- hooks (the same in both modes) -----------------------------------------------------------

    @Test
    void failedSendsRefuseThatManySendsWithTheCodeGiven() throws Exception {
        Connection connection = connect();
        assertThat(this.emulator.emu_fail_next_sends(connection.handle(), 2, WinsockEmulator.WSAENOBUFS)).isZero();
        NativeBuffer data = this.sockets.allocate(4);
        for (int i = 0; i < 2; i++) {
            data.buffer().clear().put("ping".getBytes(StandardCharsets.US_ASCII)).flip();
            assertThatExceptionOfType(NativeIoException.class).isThrownBy(() -> this.sockets.send(connection.handle(), data))
                    .satisfies((ex) -> assertThat(ex.code()).isEqualTo(WinsockEmulator.WSAENOBUFS))
                    .satisfies((ex) -> assertThat(ex.error()).isEqualTo(NativeError.NO_MEMORY));
            assertThat(data.buffer().position()).as("nothing sent").isZero();
        }
        assertThat(this.sockets.send(connection.handle(), data)).isEqualTo(4);
        assertThat(connection.peer().getInputStream().readNBytes(4)).isEqualTo("ping".getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void aRejectedBatchFailsTheWholeCallAndAppliesNothing() throws Exception {
        Connection connection = connect();
        assertThat(this.emulator.emu_reject_next_batch(WinsockEmulator.ANY_PORT, 1, WinsockEmulator.ERROR_NOT_ENOUGH_MEMORY)).isZero();
        RegistrationBatch batch = new RegistrationBatch(1);
        batch.enable(connection.handle(), KEY, Events.IN, Trigger.LEVEL_ONESHOT);
        assertThatExceptionOfType(NativeIoException.class).isThrownBy(() -> this.port.process(batch, new NotificationBatch(1), 0))
                .satisfies((ex) -> assertThat(ex.code()).isEqualTo(WinsockEmulator.ERROR_NOT_ENOUGH_MEMORY));
        connection.send("x");
        assertThat(dequeueFor(SETTLE_MILLIS)).as("the registration was not applied").isEmpty();
        this.port.apply(batch);
        assertThat(batch.failed(0)).isFalse();
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
    }

    @Test
    void everyBatchNamingARejectedSocketFailsWholeUntilCleared() throws Exception {
        Connection good = connect();
        Connection bad = connect();
        assertThat(this.emulator.emu_reject_batches_with(bad.handle(), WinsockEmulator.ERROR_INVALID_PARAMETER)).isZero();
        RegistrationBatch both = new RegistrationBatch(2);
        both.enable(good.handle(), KEY, Events.IN, Trigger.LEVEL_ONESHOT);
        both.enable(bad.handle(), 7, Events.IN, Trigger.LEVEL_ONESHOT);
        assertThatExceptionOfType(NativeIoException.class).isThrownBy(() -> this.port.apply(both))
                .satisfies((ex) -> assertThat(ex.error()).isEqualTo(NativeError.INVALID_ARGUMENT));
        RegistrationBatch alone = new RegistrationBatch(1);
        alone.enable(good.handle(), KEY, Events.IN, Trigger.LEVEL_ONESHOT);
        this.port.apply(alone);
        assertThat(alone.failed(0)).isFalse();
        assertThat(this.emulator.emu_reject_batches_with(bad.handle(), 0)).isZero();
        this.port.apply(both);
        assertThat(both.failed(1)).isFalse();
    }

    /** Holds in both modes: the switch itself. */
    @Test
    void theModeSwitchesThePortsMadeAfterIt() throws Exception {
        int previous = this.emulator.emu_set_mode(WinsockEmulator.LENIENT);
        assertThat(this.emulator.emu_mode()).isEqualTo(WinsockEmulator.LENIENT);
        try (NotificationPort lenient = backend().openPort()) {
            Connection connection = withDataArrived("early");
            this.port.deregister(connection.handle(), KEY);
            assertThat(awaitEvents(KEY)).isEqualTo(Events.REMOVE);
            RegistrationBatch edge = new RegistrationBatch(1);
            edge.enable(connection.handle(), KEY, Events.IN, Trigger.EDGE_PERSISTENT);
            lenient.apply(edge);
            assertThat(edge.failed(0)).isFalse();
            NotificationBatch batch = new NotificationBatch(1);
            assertThat(lenient.dequeue(batch, WAIT_MILLIS)).as("lenient: an edge for data already there").isEqualTo(1);
        }
        this.emulator.emu_set_mode(previous);
        assertThat(this.emulator.emu_set_mode(7)).isEqualTo(-1);
    }

    // ---- helpers ---------------------------------------------------------------------------------

    /**
     * @return a connection whose peer sent {@code text}, known to have arrived (a level-triggered
     * notification said so) and unread, and whose registration is disabled (it fired once)
     */
    private Connection withDataArrived(String text) throws Exception {
        Connection connection = connect();
        register(connection.handle(), Events.IN, Trigger.LEVEL_ONESHOT);
        connection.send(text);
        assertThat(awaitEvents(KEY)).isEqualTo(Events.IN);
        return connection;
    }

    private long listening(NativeSocketOption option, InetSocketAddress address) throws NativeIoException {
        long socket = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        this.handles.add(socket);
        if (option != null) {
            reuseAddress(socket);
        }
        bind(socket, address);
        this.sockets.listen(socket, 8);
        return socket;
    }

    /** Sets Windows' SO_REUSEADDR itself: the backend never sets it (it would share a port in use). */
    private void reuseAddress(long socket) throws NativeIoException {
        if (calls().setsockopt(socket, WinsockNative.SOL_SOCKET, WinsockNative.SO_REUSEADDR, intValue(1).address(), 4) != 0) {
            throw WsaError.last(calls(), "setsockopt(SO_REUSEADDR)");
        }
    }

    /** Binds as a program that sets no option of its own would: the backend's bind is always exclusive. */
    private void bind(long socket, InetSocketAddress address) throws NativeIoException {
        NativeBuffer name = this.sockets.allocate(SocketAddressLayout.STORAGE_SIZE);
        int length = new SocketAddressLayout(WinsockNative.AF_INET, WinsockNative.AF_INET6, WinsockNative.AF_UNIX).encode(address, name.buffer());
        if (calls().bind(socket, name.address(), length) != 0) {
            throw WsaError.last(calls(), "bind(" + address + ")");
        }
    }

    /** @return the code refusing a bind of a new socket with {@code option} set, or 0 when it binds */
    private int bindRefusal(NativeSocketOption option, InetSocketAddress address) throws NativeIoException {
        long socket = this.sockets.open(Protocol.TCP, StandardProtocolFamily.INET);
        this.handles.add(socket);
        if (option != null) {
            reuseAddress(socket);
        }
        try {
            bind(socket, address);
            return 0;
        }
        catch (NativeIoException ex) {
            return ex.code();
        }
    }

    private void setExclusive(long socket) throws NativeIoException {
        if (calls().setsockopt(socket, WinsockNative.SOL_SOCKET, WinsockNative.SO_EXCLUSIVEADDRUSE,
                intValue(1).address(), 4) != 0) {
            throw WsaError.last(calls(), "setsockopt(SO_EXCLUSIVEADDRUSE)");
        }
    }

    /** @return the binding the backend's sockets call the emulator through */
    private WinsockCalls calls() {
        return ((WinsockSockets) this.sockets).calls();
    }

    private NativeBuffer intValue(int value) {
        NativeBuffer buffer = this.sockets.allocate(4);
        buffer.buffer().putInt(0, value);
        return buffer;
    }
}
