package dev.sockstate.port;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

class TriggerTest {

    @Test
    void flagsMatchWinsocksValues() {
        assertThat(Trigger.LEVEL_ONESHOT.flags()).isEqualTo(0x04 | 0x01);
        assertThat(Trigger.EDGE_PERSISTENT.flags()).isEqualTo(0x08 | 0x02);
        assertThat(Events.IN | Events.OUT | Events.HANGUP | Events.ERR | Events.REMOVE).isEqualTo(0xC7);
        assertThat(Operation.REMOVE.code()).isEqualTo(0x04);
    }

    @Test
    void everyValidCombinationMapsBack() {
        for (Trigger trigger : Trigger.values()) {
            assertThat(Trigger.of(trigger.flags())).isSameAs(trigger);
        }
    }

    @Test
    void namesFromConfigurationAreParsedInEitherSpelling() {
        assertThat(Trigger.parse("level-oneshot")).isEqualTo(Trigger.LEVEL_ONESHOT);
        assertThat(Trigger.parse("EDGE_PERSISTENT")).isEqualTo(Trigger.EDGE_PERSISTENT);
        assertThatIllegalArgumentException().isThrownBy(() -> Trigger.parse("sometimes"))
                .withMessageContaining("level-oneshot, level-persistent, edge-oneshot or edge-persistent");
    }

    @Test
    void eventMasksReadAsNames() {
        assertThat(Events.toString(Events.IN | Events.HANGUP | Events.REMOVE)).isEqualTo("IN|HANGUP|REMOVE");
        assertThat(Events.toString(0)).isEqualTo("NONE");
        assertThat(Events.toString(0x100)).isEqualTo("0x100");
    }
}
