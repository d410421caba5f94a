package dev.spinel.server.commands.server;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.Version;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * LOLWUT [VERSION v] [arguments]: Redis's computer art, as Redis 7.0 draws it. Version 5 is Georg Nees's
 * "Schotter" (squares that fall into disorder row by row, drawn with Braille dots: a 2x4 pixel grid per
 * character); version 6 a city skyline in four terminal grays; any other version (and no VERSION, since
 * 7.0 has no drawing of its own) just the version line. Both drawings are random, as in Redis.
 *
 * <p>Redis sizes the Schotter canvas from its arguments alone (up to 2,000 x ~400,000 pixels, an 800 MB
 * buffer); here a canvas is cut at {@link #MAX_PIXELS} rows' worth of pixels, so one call cannot exhaust
 * the heap. Thread-safety: stateless.
 */
public final class LolwutCommand {
    static final int MAX_PIXELS = 1 << 24;
    private static final String VERSION_LINE = "Redis ver. " + Version.REDIS + "\n";

    private LolwutCommand() {
    }

    public static void register(CommandTable t) {
        t.register("lolwut", LolwutCommand::lolwut);
    }

    // LOLWUT [VERSION version] [version-specific arguments]
    static void lolwut(Session s, Args a) {
        int first = 1;
        long version = 7;
        if (a.count() >= 3 && a.is(1, "VERSION")) {
            version = parse(a, 2);
            first = 3;
        }
        String art;
        if (version == 5) {
            art = schotter(a, first);
        } else if (version == 6) {
            art = skyline(a, first);
        } else {
            art = VERSION_LINE;
        }
        s.out().verbatim(art);
    }

    private static long parse(Args a, int i) {
        try {
            return a.parseLong(i);
        } catch (NumberFormatException e) {
            throw Errors.NOT_INTEGER;
        }
    }

    private static long arg(Args a, int i, long absent, long min, long max) {
        long v = i < a.count() ? parse(a, i) : absent;
        return Math.clamp(v, min, max);
    }

    // ---- version 5: Schotter ----

    /** LOLWUT VERSION 5 [columns] [squares-per-row] [squares-per-column] */
    private static String schotter(Args a, int first) {
        int cols = (int) arg(a, first, 66, 1, 1000);
        int perRow = (int) arg(a, first + 1, 8, 1, 200);
        int perCol = (int) arg(a, first + 2, 12, 1, 200);
        int width = cols * 2;
        int padding = cols > 2 ? 2 : 0;
        float side = (float) (width - padding * 2) / perRow;
        int height = (int) Math.min((long) (side * perCol) + padding * 2L, MAX_PIXELS / width);
        Canvas canvas = new Canvas(width, height, 0);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int y = 0; y < perCol; y++) {
            for (int x = 0; x < perRow; x++) {
                float sx = (int) (x * side + side / 2 + padding);
                float sy = (int) (y * side + side / 2 + padding);
                float angle = 0;
                if (y > 1) { // lower rows turn and shift more and more at random
                    float r1 = random.nextFloat() / perCol * y;
                    float r2 = random.nextFloat() / perCol * y;
                    float r3 = random.nextFloat() / perCol * y;
                    angle = random.nextBoolean() ? -r1 : r1;
                    sx += (random.nextBoolean() ? -r2 : r2) * side / 3;
                    sy += (random.nextBoolean() ? -r3 : r3) * side / 3;
                }
                square(canvas, (int) sx, (int) sy, side, angle);
            }
        }
        return braille(canvas) + "\nGeorg Nees - schotter, plotter on paper, 1968. " + VERSION_LINE;
    }

    /** A square of side {@code size} centred on x,y and turned by {@code angle}: four points on its circumscribed circle. */
    private static void square(Canvas c, int x, int y, float size, float angle) {
        size = (float) roundHalfAway((float) (size / 1.4142135623));
        int[] px = new int[4];
        int[] py = new int[4];
        float k = (float) (Math.PI / 4 + angle);
        for (int j = 0; j < 4; j++) {
            px[j] = (int) roundHalfAway(Math.sin(k) * size + x);
            py[j] = (int) roundHalfAway(Math.cos(k) * size + y);
            k += (float) (Math.PI / 2);
        }
        for (int j = 0; j < 4; j++) {
            line(c, px[j], py[j], px[(j + 1) % 4], py[(j + 1) % 4]);
        }
    }

    /** Bresenham. */
    private static void line(Canvas c, int x1, int y1, int x2, int y2) {
        int dx = Math.abs(x2 - x1);
        int dy = Math.abs(y2 - y1);
        int sx = x1 < x2 ? 1 : -1;
        int sy = y1 < y2 ? 1 : -1;
        int err = dx - dy;
        while (true) {
            c.set(x1, y1, 1);
            if (x1 == x2 && y1 == y2) {
                return;
            }
            int e2 = err * 2;
            if (e2 > -dy) {
                err -= dy;
                x1 += sx;
            }
            if (e2 < dx) {
                err += dx;
                y1 += sy;
            }
        }
    }

    /** C's round(): halves away from zero (Math.round rounds them up). */
    private static double roundHalfAway(double v) {
        return v < 0 ? -Math.floor(-v + 0.5) : Math.floor(v + 0.5);
    }

    /** Each 2x4 block of pixels as one Braille character (U+2800 plus a bit per dot), rows of them by lines. */
    private static String braille(Canvas c) {
        StringBuilder sb = new StringBuilder((c.width / 2 + 1) * (c.height / 4 + 1));
        for (int y = 0; y < c.height; y += 4) {
            for (int x = 0; x < c.width; x += 2) {
                int dots = c.get(x, y) | c.get(x, y + 1) << 1 | c.get(x, y + 2) << 2 | c.get(x + 1, y) << 3
                        | c.get(x + 1, y + 1) << 4 | c.get(x + 1, y + 2) << 5 | c.get(x, y + 3) << 6 | c.get(x + 1, y + 3) << 7;
                sb.append((char) (0x2800 + dots));
            }
            if (y != c.height - 1) {
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    // ---- version 6: skyline ----

    /** LOLWUT VERSION 6 [columns] [rows] */
    private static String skyline(Args a, int first) {
        int cols = (int) arg(a, first, 80, 1, 1000);
        int rows = (int) arg(a, first + 1, 20, 1, 1000);
        Canvas canvas = new Canvas(cols, rows, 3);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        // Background buildings without windows, the lighter gray behind.
        for (int color = 2; color >= 1; color--) {
            for (int offset = -10; offset < cols; ) {
                offset += random.nextInt(8);
                int width = 10 + random.nextInt(9);
                int height = color == 2 ? rows / 2 + random.nextInt(rows) / 2 : rows / 2 + random.nextInt(rows) / 3;
                building(canvas, random, offset, width, height, false, color);
                offset += color == 2 ? width / 2 : width + 1;
            }
        }
        // Black buildings with lit windows in front.
        for (int offset = -10; offset < cols; ) {
            offset += random.nextInt(8);
            int width = 5 + random.nextInt(14);
            if (width % 4 != 0) {
                width += width % 3;
            }
            int height = rows / 3 + random.nextInt(rows) / 2;
            building(canvas, random, offset, width, height, true, 0);
            offset += width + 5;
        }
        StringBuilder sb = new StringBuilder(cols * rows * 16);
        for (int y = 0; y < rows; y++) {
            for (int x = 0; x < cols; x++) {
                String escape = switch (canvas.get(x, y)) {
                    case 1 -> "0;90;100m";
                    case 2 -> "0;37;47m";
                    case 3 -> "0;97;107m";
                    default -> "0;30;40m";
                };
                sb.append("\033[").append(escape).append(" \033[0m");
            }
            if (y != rows - 1) {
                sb.append('\n');
            }
        }
        return sb.append("\nDedicated to the 8 bit game developers of past and present.\n"
                + "Original 8 bit image from Plaguemon by hikikomori. ").append(VERSION_LINE).toString();
    }

    /** A building standing on the bottom row; its roof two pixels narrower on each side; windows two pixels wide. */
    private static void building(Canvas c, ThreadLocalRandom random, int xoff, int width, int height, boolean windows, int color) {
        int bottom = c.height - 1;
        int top = bottom - height + 1;
        for (int y = bottom; y >= top; y--) {
            for (int x = xoff; x < xoff + width; x++) {
                if (y == top && (x <= xoff + 1 || x >= xoff + width - 2)) {
                    continue;
                }
                int pixel = color;
                if (windows && x > xoff + 1 && x < xoff + width - 2 && y > top + 1 && y < bottom - 1) {
                    int relx = x - (xoff + 1);
                    int rely = y - (top + 1);
                    if ((relx / 2) % 2 != 0 && rely % 2 != 0) {
                        pixel = relx % 2 != 0 ? c.get(x - 1, y) : 1 + random.nextInt(2); // a window's two pixels alike
                    }
                }
                c.set(x, y, pixel);
            }
        }
    }

    /** Pixels of 0..3; reads outside are 0, writes outside are dropped. */
    private static final class Canvas {
        final int width;
        final int height;
        private final byte[] pixels;

        Canvas(int width, int height, int fill) {
            this.width = width;
            this.height = height;
            pixels = new byte[width * height];
            Arrays.fill(pixels, (byte) fill);
        }

        void set(int x, int y, int color) {
            if (x >= 0 && x < width && y >= 0 && y < height) {
                pixels[x + y * width] = (byte) color;
            }
        }

        int get(int x, int y) {
            return x >= 0 && x < width && y >= 0 && y < height ? pixels[x + y * width] : 0;
        }
    }
}
