package dev.spinel.cluster;

/**
 * An open slot migration as one node sees it (Redis's migrating_slots_to / importing_slots_from):
 * {@code nodeId} migrates the slot to, or imports it from, {@code peerId}. Immutable.
 */
public record SlotMove(String nodeId, String peerId) {
}
