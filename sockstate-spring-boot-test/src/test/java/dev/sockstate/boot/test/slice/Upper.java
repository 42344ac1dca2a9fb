package dev.sockstate.boot.test.slice;

import dev.sockstate.spring.handler.OnData;
import dev.sockstate.spring.handler.SocketHandler;

/** Answers each line shouted, through the application's converter. */
@SocketHandler("upper")
class Upper {

    private final Shout shout;

    Upper(Shout shout) {
        this.shout = shout;
    }

    @OnData
    String upper(String line) {
        return this.shout.convert(line);
    }
}
