package dev.sockstate.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sockstate.server.Connection;
import dev.sockstate.server.Stage;
import dev.sockstate.server.StageContext;
import dev.sockstate.server.engine.PipelineTest.RecordingHandler;
import dev.sockstate.server.engine.turn.BlocksWorkers;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The pipeline's ways back and out, with stages written here on the real backend: a stage that
 * hands work to another thread goes on with {@link StageContext#resume} on the connection's owner,
 * and {@link Stage#outputEnding} lets a stage write last before a graceful close or a FIN.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StageResumeTest {

    private final ServerFixture fixture = new ServerFixture();

    private final ExecutorService elsewhere = Executors.newFixedThreadPool(2, (task) -> new Thread(task, "elsewhere"));

    @AfterEach
    void stop() throws Exception {
        this.fixture.close();
        this.elsewhere.shutdownNow();
    }

    @Test
    void aStageGoesOnOnTheConnectionsOwnerAfterWorkOnAnotherThread() throws Exception {
        List<String> resumedOn = new CopyOnWriteArrayList<>();
        RecordingHandler handler = new RecordingHandler();
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("resume").stage(() -> new Stage() {

            @Override
            public void data(StageContext context, ByteBuffer data) {
                String text = StandardCharsets.US_ASCII.decode(data).toString();
                StageResumeTest.this.elsewhere.execute(() -> {
                    String upper = text.toUpperCase();
                    context.resume(() -> {
                        resumedOn.add(Thread.currentThread().getName());
                        context.passData(ByteBuffer.wrap(upper.getBytes(StandardCharsets.US_ASCII)));
                    });
                });
            }
        }).handler(handler).build());
        Socket client = this.fixture.connect(server, "resume");
        client.getOutputStream().write("slow".getBytes(StandardCharsets.US_ASCII));
        ServerFixture.await(() -> handler.messages.size() == 1, "the resumed message");
        assertThat(handler.messages).containsExactly("SLOW");
        assertThat(resumedOn).singleElement().satisfies((name) -> assertThat(name).startsWith("sockstate-default-"));
        assertThat(handler.threads).containsExactlyElementsOf(resumedOn);
    }

    @Test
    @BlocksWorkers("a stage's method works a while so that resumes come beside it")
    void resumedTasksRunInOrderAndNeverBesideTheStagesMethods() throws Exception {
        AtomicInteger beside = new AtomicInteger();
        List<Integer> order = new CopyOnWriteArrayList<>();
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("order").stage(() -> new Stage() {

            private volatile boolean inside;

            @Override
            public void data(StageContext context, ByteBuffer data) throws Exception {
                this.inside = true;
                Thread.sleep(1);
                if (StandardCharsets.US_ASCII.decode(data.duplicate()).toString().contains("go")) {
                    StageResumeTest.this.elsewhere.execute(() -> {
                        for (int i = 0; i < 500; i++) {
                            int step = i;
                            context.resume(() -> {
                                if (this.inside) {
                                    beside.incrementAndGet();
                                }
                                order.add(step);
                            });
                        }
                    });
                }
                context.passData(data);
                this.inside = false;
            }
        }).handler(new EchoHandler()).build());
        Socket client = this.fixture.connect(server, "order");
        client.getOutputStream().write("go".getBytes(StandardCharsets.US_ASCII));
        for (int i = 0; i < 50; i++) {
            client.getOutputStream().write("x".getBytes(StandardCharsets.US_ASCII));
        }
        ServerFixture.await(() -> order.size() == 500, "every resumed task ran");
        assertThat(beside.get()).as("tasks run beside a stage method").isZero();
        assertThat(order).isSorted();
    }

    @Test
    void aResumedTaskThatThrowsAbortsTheConnectionAndOneResumedAfterTheCloseIsDropped() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        AtomicInteger ranAfterClose = new AtomicInteger();
        List<StageContext> contexts = new CopyOnWriteArrayList<>();
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("fails").stage(() -> new Stage() {

            @Override
            public void data(StageContext context, ByteBuffer data) {
                contexts.add(context);
                context.resume(() -> {
                    throw new IllegalStateException("resumed and failed");
                });
            }
        }).handler(handler).build());
        Socket client = this.fixture.connect(server, "fails");
        client.getOutputStream().write("x".getBytes(StandardCharsets.US_ASCII));
        ServerFixture.await(() -> handler.closed.get() == 1, "the connection aborted");
        assertThat(handler.errors).singleElement().satisfies((error) -> assertThat(error).hasMessage("resumed and failed"));
        assertThat(server.listener("fails").handlerErrors()).isEqualTo(1);
        contexts.get(0).resume(ranAfterClose::incrementAndGet);
        Thread.sleep(100);
        assertThat(ranAfterClose.get()).as("a task resumed after the close").isZero();
    }

    @Test
    void aStageWritesLastBeforeACloseOrAFinButNotOnAnAbort() throws Exception {
        List<String> order = new CopyOnWriteArrayList<>();
        SocketServer server = this.fixture.start(2, ServerFixture.tcp("bye").stage(() -> new Stage() {

            @Override
            public void outputEnding(StageContext context) {
                order.add("ending");
                context.write(ByteBuffer.wrap("<bye>".getBytes(StandardCharsets.US_ASCII)));
            }
        }).handler((Connection connection, ByteBuffer data) -> {
            String text = StandardCharsets.US_ASCII.decode(data).toString();
            connection.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII)));
            switch (text) {
                case "close" -> connection.close();
                case "fin" -> connection.shutdownOutput();
                default -> throw new IllegalStateException("aborting");
            }
        }).build());
        for (String how : List.of("close", "fin")) {
            Socket client = this.fixture.connect(server, "bye");
            client.getOutputStream().write(how.getBytes(StandardCharsets.US_ASCII));
            assertThat(readToEnd(client.getInputStream())).as(how).isEqualTo(how + "<bye>");
        }
        Socket aborted = this.fixture.connect(server, "bye");
        aborted.getOutputStream().write("abort".getBytes(StandardCharsets.US_ASCII));
        assertThat(readToEnd(aborted.getInputStream())).doesNotContain("<bye>");
        assertThat(order).as("once per graceful end").containsExactly("ending", "ending");
    }

    private static String readToEnd(InputStream in) {
        StringBuilder read = new StringBuilder();
        try {
            int next;
            while ((next = in.read()) >= 0) {
                read.append((char) next);
            }
        }
        catch (IOException ex) {
            // reset by an abort
        }
        return read.toString();
    }
}
