package dev.sockstate.boot.test.slice;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** An application with a handler, a converter and a service, for the slice's tests. */
@SpringBootApplication
class SliceApplication {
}
