package dev.spinel.cluster;

/**
 * The one order of Raft groups every node agrees on, by which CLUSTER MEET merges them: of two groups, the one that
 * comes first takes the other's nodes in, and a node that two groups have brought in (two merges at the same time)
 * belongs to the one that comes first. The larger group comes first (the fewest nodes move: a new node joins a
 * cluster, never the reverse), then the one whose smallest node id is smaller, then the smaller group id.
 *
 * @param size   how many nodes the group's topology has
 * @param minId  the smallest of their ids
 * @param group  the Raft group id
 */
public record GroupOrder(int size, String minId, String group) implements Comparable<GroupOrder> {

    /** The place of the group {@code group} whose topology is {@code t}. */
    public static GroupOrder of(Topology t, String group) {
        String min = "";
        for (ClusterNode n : t.nodes()) {
            if (min.isEmpty() || n.id().compareTo(min) < 0) {
                min = n.id();
            }
        }
        return new GroupOrder(t.nodes().size(), min, group);
    }

    /** Negative when this group comes first. */
    @Override
    public int compareTo(GroupOrder o) {
        if (size != o.size) {
            return size > o.size ? -1 : 1;
        }
        int c = minId.compareTo(o.minId);
        return c != 0 ? c : group.compareTo(o.group);
    }
}
