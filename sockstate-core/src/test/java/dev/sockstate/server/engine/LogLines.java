package dev.sockstate.server.engine;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** The messages a class's logger takes while this is open: for tests of what the server logs. */
final class LogLines implements AutoCloseable {

    private final List<String> lines = new CopyOnWriteArrayList<>();

    /** Held here: the logging system keeps its loggers only weakly. */
    private final Logger logger;

    private final Handler handler = new Handler() {

        @Override
        public void publish(LogRecord record) {
            LogLines.this.lines.add(record.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    /** @param source the class whose logger is listened to */
    LogLines(Class<?> source) {
        this.logger = Logger.getLogger(source.getName());
        this.logger.addHandler(this.handler);
    }

    /** @return the messages so far, in order */
    List<String> lines() {
        return this.lines;
    }

    @Override
    public void close() {
        this.logger.removeHandler(this.handler);
    }
}
