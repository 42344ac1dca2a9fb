package dev.sockstate.port.winsock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import com.sun.jna.Native;
import org.junit.jupiter.api.Test;

/** The structures' sizes and offsets against the table of {@code winsock-abi.md}, for x64 and x86. */
class NotificationLayoutTest {

    @Test
    void registrationOnX64() {
        NotificationLayout x64 = NotificationLayout.forPointerSize(8);
        assertThat(x64.registrationSize).isEqualTo(24);
        assertThat(new int[] { x64.socketOffset, x64.completionKeyOffset, x64.eventFilterOffset, x64.operationOffset,
                x64.triggerFlagsOffset, x64.registrationResultOffset }).containsExactly(0, 8, 16, 18, 19, 20);
    }

    @Test
    void registrationOnX86() {
        NotificationLayout x86 = NotificationLayout.forPointerSize(4);
        assertThat(x86.registrationSize).isEqualTo(16);
        assertThat(new int[] { x86.socketOffset, x86.completionKeyOffset, x86.eventFilterOffset, x86.operationOffset,
                x86.triggerFlagsOffset, x86.registrationResultOffset }).containsExactly(0, 4, 8, 10, 11, 12);
    }

    @Test
    void overlappedEntryOnX64() {
        NotificationLayout x64 = NotificationLayout.forPointerSize(8);
        assertThat(x64.entrySize).as("28 bytes of fields and 4 of padding").isEqualTo(32);
        assertThat(new int[] { x64.entryCompletionKeyOffset, x64.entryOverlappedOffset, x64.entryInternalOffset,
                x64.entryBytesTransferredOffset }).containsExactly(0, 8, 16, 24);
    }

    @Test
    void overlappedEntryOnX86() {
        NotificationLayout x86 = NotificationLayout.forPointerSize(4);
        assertThat(x86.entrySize).isEqualTo(16);
        assertThat(new int[] { x86.entryCompletionKeyOffset, x86.entryOverlappedOffset, x86.entryInternalOffset,
                x86.entryBytesTransferredOffset }).containsExactly(0, 4, 8, 12);
    }

    @Test
    void theJnaRegistrationStructureHasTheLayoutOfThisJvm() {
        SOCK_NOTIFY_REGISTRATION structure = new SOCK_NOTIFY_REGISTRATION();
        NotificationLayout layout = NotificationLayout.forPointerSize(Native.POINTER_SIZE);
        assertThat(structure.size()).isEqualTo(layout.registrationSize);
        assertThat(structure.offsetOf("socket")).isEqualTo(layout.socketOffset);
        assertThat(structure.offsetOf("completionKey")).isEqualTo(layout.completionKeyOffset);
        assertThat(structure.offsetOf("eventFilter")).isEqualTo(layout.eventFilterOffset);
        assertThat(structure.offsetOf("operation")).isEqualTo(layout.operationOffset);
        assertThat(structure.offsetOf("triggerFlags")).isEqualTo(layout.triggerFlagsOffset);
        assertThat(structure.offsetOf("registrationResult")).isEqualTo(layout.registrationResultOffset);
    }

    @Test
    void theJnaOverlappedEntryStructureHasTheLayoutOfThisJvm() {
        OVERLAPPED_ENTRY structure = new OVERLAPPED_ENTRY();
        NotificationLayout layout = NotificationLayout.forPointerSize(Native.POINTER_SIZE);
        assertThat(structure.size()).isEqualTo(layout.entrySize);
        assertThat(structure.offsetOf("lpCompletionKey")).isEqualTo(layout.entryCompletionKeyOffset);
        assertThat(structure.offsetOf("lpOverlapped")).isEqualTo(layout.entryOverlappedOffset);
        assertThat(structure.offsetOf("Internal")).isEqualTo(layout.entryInternalOffset);
        assertThat(structure.offsetOf("dwNumberOfBytesTransferred")).isEqualTo(layout.entryBytesTransferredOffset);
    }

    @Test
    void theFlatArrayMatchesWhatTheStructureWrites() {
        SOCK_NOTIFY_REGISTRATION structure = new SOCK_NOTIFY_REGISTRATION();
        structure.socket = new ULONG_PTR(0x1234);
        structure.eventFilter = 0x07;
        structure.operation = 0x01;
        structure.triggerFlags = 0x05;
        structure.registrationResult = 10038;
        structure.write();
        byte[] written = structure.getPointer().getByteArray(0, structure.size());
        java.nio.ByteBuffer flat = java.nio.ByteBuffer.wrap(written).order(java.nio.ByteOrder.nativeOrder());
        NotificationLayout layout = NotificationLayout.NATIVE;
        assertThat(layout.getPointer(flat, layout.socketOffset)).isEqualTo(0x1234);
        assertThat(flat.getShort(layout.eventFilterOffset)).isEqualTo((short) 0x07);
        assertThat(flat.get(layout.operationOffset)).isEqualTo((byte) 0x01);
        assertThat(flat.get(layout.triggerFlagsOffset)).isEqualTo((byte) 0x05);
        assertThat(flat.getInt(layout.registrationResultOffset)).isEqualTo(10038);
    }

    @Test
    void onlyWindowsPointerSizesHaveALayout() {
        assertThatIllegalArgumentException().isThrownBy(() -> NotificationLayout.forPointerSize(2))
                .withMessageContaining("4 or 8");
    }
}
