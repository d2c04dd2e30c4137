package io.github.idworker.lease.zookeeper;

import java.util.UUID;

/**
 * The paths of one centre's znode tree as the server sees them: below the client's Curator namespace, when it has
 * one. Every path the centre reads or writes is spelt here, so the tree described in
 * {@link ZookeeperSequenceManager} has one definition that borrow, renewal, return and repair all share.
 */
final class ZnodeTree {

    /** The data of the znodes that carry none: the clock, the parents and the incarnation markers. */
    static final byte[] EMPTY = new byte[0];

    private final String root;

    /** @param root the base path as the server sees it */
    ZnodeTree(String root) {
        this.root = root;
    }

    /** The znode every borrow and renewal writes to read the centre's clock (its modification time). */
    String clock() {
        return root + "/clock";
    }

    /** The znode whose increasing data keeps the largest loss guard any borrower under the base used. */
    String guard() {
        return root + "/guard";
    }

    /** The parent of every namespace record. */
    String namespaces() {
        return root + "/namespaces";
    }

    /** The znode of a namespace's record; its children hold the slots. */
    String namespace(String namespace) {
        return namespaces() + "/" + namespace;
    }

    /** The parent of a namespace's slot records. */
    String slots(String namespace) {
        return namespace(namespace) + "/slots";
    }

    /** The persistent znode of one slot's record. */
    String slot(String namespace, int workerId) {
        return slots(namespace) + "/" + workerId;
    }

    /** The parent of a namespace's ephemeral holder znodes. */
    String lives(String namespace) {
        return namespace(namespace) + "/live";
    }

    /** The ephemeral znode the holder's session keeps while it holds the slot. */
    String live(String namespace, int workerId) {
        return lives(namespace) + "/" + workerId;
    }

    /** The parent of a namespace's incarnation markers. */
    String incarnations(String namespace) {
        return namespace(namespace) + "/inc";
    }

    /** The marker named {@code name} (a child of {@link #incarnations}), as found in a listing. */
    String marker(String namespace, String name) {
        return incarnations(namespace) + "/" + name;
    }

    /** The marker of one incarnation of a slot's record: it exists exactly while that incarnation does. */
    String slotMarker(String namespace, int workerId, String incarnation) {
        return marker(namespace, workerId + "-" + incarnation);
    }

    /** The marker of one incarnation (generation) of a namespace record. */
    String namespaceMarker(String namespace, String generation) {
        return marker(namespace, "ns-" + generation);
    }

    /** A new random id of an incarnation of a slot record or of a namespace record (its generation). */
    static String newIncarnation() {
        return UUID.randomUUID().toString();
    }
}
