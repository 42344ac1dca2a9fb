package dev.sockstate.boot.test.slice;

import org.springframework.stereotype.Service;

/** A service no handler needs, which the slice leaves out. */
@Service
class Mailer {
}
