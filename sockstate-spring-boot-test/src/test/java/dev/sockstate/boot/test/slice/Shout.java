package dev.sockstate.boot.test.slice;

import org.springframework.core.convert.converter.Converter;
import org.springframework.stereotype.Component;

/** A converter: what a handler's messages go through, which the slice keeps. */
@Component
class Shout implements Converter<String, String> {

    @Override
    public String convert(String source) {
        return source.toUpperCase() + "!";
    }
}
