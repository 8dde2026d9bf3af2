package dev.kconnect.host;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The wire between the worker and the host: frames of a 4-byte big-endian unsigned length
 * followed by that many bytes of UTF-8 JSON (one object per frame). Toward the worker, a
 * message may carry binary attachments: each goes first as a frame whose length has bit 31 set
 * (the length is the low 31 bits) holding the raw bytes, and the JSON names it
 * {@code {"$frame": i}} (the i-th binary frame before it).
 *
 * <p>Threading: {@link #read()} is called by one thread only (the host's reader thread);
 * {@link #write(String)} may be called from any thread, and is serialised so that the frames of
 * concurrent replies never interleave.
 */
final class FrameChannel {

    /** Larger frames are treated as a broken stream rather than allocated. */
    static final long MAX_FRAME_BYTES = 1L << 30;

    private final DataInputStream in;
    private final OutputStream out;
    private final Object writeLock = new Object();

    FrameChannel(InputStream in, OutputStream out) {
        this.in = new DataInputStream(in);
        this.out = out;
    }

    /**
     * Reads the next frame's text, or returns {@code null} at the end of the input (also when the
     * input ends in the middle of a frame: the worker is gone either way).
     *
     * @throws IOException when reading fails or a frame announces an impossible length
     */
    String read() throws IOException {
        byte[] header = new byte[4];
        int got = 0;
        while (got < 4) {
            int n = in.read(header, got, 4 - got);
            if (n < 0) {
                return null;
            }
            got += n;
        }
        long length = ((header[0] & 0xFFL) << 24) | ((header[1] & 0xFFL) << 16)
                | ((header[2] & 0xFFL) << 8) | (header[3] & 0xFFL);
        if (length > MAX_FRAME_BYTES) {
            throw new IOException("frame of " + length + " bytes announced; the stream is corrupt");
        }
        byte[] body = new byte[(int) length];
        try {
            in.readFully(body);
        } catch (EOFException e) {
            return null;
        }
        return new String(body, StandardCharsets.UTF_8);
    }

    /** Writes one frame holding the text and flushes it. */
    void write(String json) throws IOException {
        write(json, List.of());
    }

    /**
     * Writes the attachments as binary frames, then the frame holding the text, and flushes:
     * together, so that no other message comes between them.
     */
    void write(String json, List<byte[]> attachments) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        byte[] frame = new byte[4 + body.length];
        header(frame, body.length, false);
        System.arraycopy(body, 0, frame, 4, body.length);
        synchronized (writeLock) {
            for (byte[] attachment : attachments) {
                if (attachment.length > MAX_FRAME_BYTES) {
                    throw new IOException("attachment of " + attachment.length + " bytes is too large");
                }
                byte[] head = new byte[4];
                header(head, attachment.length, true);
                out.write(head);
                out.write(attachment);
            }
            out.write(frame);
            out.flush();
        }
    }

    private static void header(byte[] into, int length, boolean binary) {
        into[0] = (byte) ((length >>> 24) | (binary ? 0x80 : 0));
        into[1] = (byte) (length >>> 16);
        into[2] = (byte) (length >>> 8);
        into[3] = (byte) length;
    }
}
