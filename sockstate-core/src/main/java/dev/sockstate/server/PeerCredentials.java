package dev.sockstate.server;

/**
 * Who is at the other end of a Unix domain stream socket: the process that connected, as the system
 * recorded it at that moment ({@code SO_PEERCRED} on Linux), so a handler can trust it as it trusts
 * the file's permissions. Available on the epoll backend; the nio backend and Windows tell none
 * ({@link Connection#peerCredentials()} is {@code null} there).
 *
 * @param pid the process id
 * @param uid the user id
 * @param gid the group id
 */
public record PeerCredentials(long pid, long uid, long gid) {
}
