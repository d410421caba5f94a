package dev.spinel.server.acl;

import java.util.ArrayList;
import java.util.List;

/** What ACL GETUSER and ACL CAT show of users and categories, as text. Stateless. */
public final class AclDescriptions {
    private AclDescriptions() {
    }

    public static List<String> flags(UserRules r) {
        return r.flagNames();
    }

    public static List<String> passwords(UserRules r) {
        return List.copyOf(r.passwords);
    }

    /** Per selector (the root first): its commands, keys and channels descriptions. */
    public static List<String[]> selectors(UserRules r) {
        List<String[]> out = new ArrayList<>();
        for (Selector s : r.selectors) {
            out.add(new String[] {s.commandRules(), s.keysDescription(), s.channelsDescription()});
        }
        return out;
    }

    /** The full names of the commands in a category (any case), or null when there is no such category. */
    public static List<String> commandsIn(String category) {
        long cat = CommandIds.category(category);
        if (cat == 0) {
            return null;
        }
        List<String> out = new ArrayList<>();
        for (int id = 0; id < CommandIds.count(); id++) {
            if ((CommandIds.categories(id) & cat) != 0) {
                out.add(CommandIds.spec(id).name());
            }
        }
        return out;
    }

    public static boolean hasSubcommands(int id) {
        return CommandIds.children(id).length > 0;
    }
}
