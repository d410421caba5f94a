package dev.spinel.client;

/** An end of a list, for LMOVE and BLMOVE. */
public enum ListDirection {
    LEFT, RIGHT
}
