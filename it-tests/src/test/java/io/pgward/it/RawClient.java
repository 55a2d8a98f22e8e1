package io.pgward.it;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A byte-level PostgreSQL client for tests that need exact messages, including malformed ones. */
final class RawClient implements AutoCloseable {

    record Message(char type, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** Fields of an ErrorResponse/NoticeResponse by code. */
        Map<Character, String> fields() {
            Map<Character, String> fields = new LinkedHashMap<>();
            int i = 0;
            while (i < body.length && body[i] != 0) {
                int end = i + 1;
                while (body[end] != 0) {
                    end++;
                }
                fields.put((char) body[i], new String(body, i + 1, end - i - 1, StandardCharsets.UTF_8));
                i = end + 1;
            }
            return fields;
        }
    }

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;

    RawClient(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(10_000);
        in = new DataInputStream(socket.getInputStream());
        out = new DataOutputStream(socket.getOutputStream());
    }

    /** Logs in with a trust login and reads up to the first ReadyForQuery. */
    static RawClient loggedIn(int port, String user, String database) throws IOException {
        RawClient client = new RawClient(port);
        client.startup(Map.of("user", user, "database", database));
        List<Message> messages = client.readUntilReady();
        if (messages.get(0).type() != 'R') {
            throw new IOException("login failed: " + messages);
        }
        return client;
    }

    /**
     * Logs in with SCRAM-SHA-256, as PostgreSQL itself asks the test role to, and reads up to the first
     * ReadyForQuery: the same raw messages can then go to PostgreSQL and to pgward.
     */
    static RawClient loggedIn(int port, String user, String password, String database) throws IOException {
        RawClient client = new RawClient(port);
        client.startup(Map.of("user", user, "database", database));
        authentication(client.read(), 10);
        ScramLogin scram = new ScramLogin(password);
        byte[] first = scram.clientFirst().getBytes(StandardCharsets.US_ASCII);
        java.io.ByteArrayOutputStream initial = new java.io.ByteArrayOutputStream();
        DataOutputStream data = new DataOutputStream(initial);
        cstring(data, "SCRAM-SHA-256");
        data.writeInt(first.length);
        data.write(first);
        client.send('p', initial.toByteArray());
        client.flush();
        byte[] serverFirst = authentication(client.read(), 11);
        client.send('p', scram.clientFinal(new String(serverFirst, StandardCharsets.US_ASCII))
                .getBytes(StandardCharsets.US_ASCII));
        client.flush();
        authentication(client.read(), 12);
        List<Message> messages = client.readUntilReady();
        if (messages.get(0).type() != 'R') {
            throw new IOException("login failed: " + messages);
        }
        return client;
    }

    /** The data of an Authentication message with {@code code}; anything else fails the login. */
    private static byte[] authentication(Message message, int code) throws IOException {
        if (message.type() != 'R' || java.nio.ByteBuffer.wrap(message.body()).getInt() != code) {
            throw new IOException("expected authentication " + code + ", got " + message.type() + " "
                    + message.fields());
        }
        return java.util.Arrays.copyOfRange(message.body(), 4, message.body().length);
    }

    void startup(Map<String, String> parameters) throws IOException {
        startup(List.copyOf(parameters.entrySet()));
    }

    /** A StartupMessage with exactly these pairs in this order, repeats included. */
    void startup(List<Map.Entry<String, String>> pairs) throws IOException {
        java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
        DataOutputStream data = new DataOutputStream(body);
        data.writeInt(196608);
        for (Map.Entry<String, String> e : pairs) {
            cstring(data, e.getKey());
            cstring(data, e.getValue());
        }
        data.writeByte(0);
        out.writeInt(body.size() + 4);
        out.write(body.toByteArray());
        out.flush();
    }

    void raw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    void send(char type, byte[] body) throws IOException {
        out.writeByte(type);
        out.writeInt(body.length + 4);
        out.write(body);
    }

    void flush() throws IOException {
        out.flush();
    }

    void query(String sql) throws IOException {
        send('Q', cstrings(sql));
        flush();
    }

    /** A Query whose text is these bytes, whatever encoding they are in. */
    void query(byte[] sql) throws IOException {
        byte[] body = java.util.Arrays.copyOf(sql, sql.length + 1);
        send('Q', body);
        flush();
    }

    /** A Parse whose text is these bytes, without parameter types. */
    void parse(String name, byte[] sql) throws IOException {
        java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
        cstring(new DataOutputStream(body), name);
        body.write(sql);
        body.write(new byte[] {0, 0, 0});
        send('P', body.toByteArray());
    }

    void parse(String name, String sql) throws IOException {
        byte[] strings = cstrings(name, sql);
        byte[] body = new byte[strings.length + 2];
        System.arraycopy(strings, 0, body, 0, strings.length);
        send('P', body);
    }

    void bind(String portal, String statement) throws IOException {
        byte[] strings = cstrings(portal, statement);
        byte[] body = new byte[strings.length + 6];
        System.arraycopy(strings, 0, body, 0, strings.length);
        send('B', body);
    }

    void execute(String portal) throws IOException {
        execute(portal, 0);
    }

    /** An Execute that returns at most {@code maxRows} rows (0: all) and leaves the portal open for more. */
    void execute(String portal, int maxRows) throws IOException {
        byte[] strings = cstrings(portal);
        byte[] body = java.nio.ByteBuffer.allocate(strings.length + 4).put(strings).putInt(maxRows).array();
        send('E', body);
    }

    void sync() throws IOException {
        send('S', new byte[0]);
        flush();
    }

    /** One byte outside any message: the answer to SSLRequest or GSSENCRequest. */
    char readByte() throws IOException {
        return (char) in.readUnsignedByte();
    }

    Message read() throws IOException {
        char type = (char) in.readUnsignedByte();
        int length = in.readInt();
        byte[] body = new byte[length - 4];
        in.readFully(body);
        return new Message(type, body);
    }

    List<Message> readUntilReady() throws IOException {
        List<Message> messages = new ArrayList<>();
        Message m;
        do {
            m = read();
            messages.add(m);
        } while (m.type() != 'Z');
        return messages;
    }

    /** Reads until the server closes the connection and returns what it sent. */
    List<Message> readUntilClosed() throws IOException {
        List<Message> messages = new ArrayList<>();
        try {
            while (true) {
                messages.add(read());
            }
        } catch (EOFException | java.net.SocketException e) {
            return messages;
        }
    }

    /**
     * Sends each exchange whole and reads it up to its ReadyForQuery: what the server answered, one line per message,
     * errors and notices by severity, SQLSTATE and text, a RowDescription by its type alone.
     */
    List<String> replies(List<byte[]> exchanges) throws IOException {
        List<String> replies = new ArrayList<>();
        for (byte[] exchange : exchanges) {
            raw(exchange);
            StringBuilder reply = new StringBuilder();
            for (Message m : readUntilReady()) {
                reply.append(m.type()).append(' ');
                if (m.type() == 'E' || m.type() == 'N') {
                    reply.append(m.fields().get('S')).append(' ').append(m.fields().get('C')).append(' ')
                            .append(m.fields().get('M'));
                } else if (m.type() != 'T') {
                    reply.append(m.text().replace('\0', '|'));
                }
                reply.append('\n');
            }
            replies.add(reply.toString());
        }
        return replies;
    }

    /** A message whose body is {@code body}'s characters, each one byte. */
    static byte[] frame(char type, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.ISO_8859_1);
        return java.nio.ByteBuffer.allocate(5 + bytes.length).put((byte) type).putInt(4 + bytes.length).put(bytes)
                .array();
    }

    /** Sync. */
    static final byte[] SYNC = frame('S', "");
    /** Bind of the unnamed statement to the unnamed portal, without parameters, every result column in text. */
    static final byte[] BIND_UNNAMED = frame('B', "\0\0\0\0\0\0\0\0");
    /** Execute of the unnamed portal, every row. */
    static final byte[] EXECUTE_UNNAMED = frame('E', "\0\0\0\0\0");

    /** Parse of the unnamed statement, without parameter types. */
    static byte[] parseUnnamed(String sql) {
        return frame('P', "\0" + sql + "\0\0\0");
    }

    /**
     * FunctionCall of {@code oid} with text arguments and a text result. Wire: 'F' | int32 len | int32 oid | int16 0
     * (every argument text) | int16 n | (int32 len | bytes)* | int16 0.
     */
    static byte[] functionCall(int oid, String... arguments) {
        java.nio.ByteBuffer body = java.nio.ByteBuffer.allocate(1024).putInt(oid).putShort((short) 0)
                .putShort((short) arguments.length);
        for (String argument : arguments) {
            byte[] bytes = argument.getBytes(StandardCharsets.UTF_8);
            body.putInt(bytes.length).put(bytes);
        }
        body.putShort((short) 0);
        return frame('F', new String(body.array(), 0, body.position(), StandardCharsets.ISO_8859_1));
    }

    static byte[] concat(byte[]... frames) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] f : frames) {
            out.writeBytes(f);
        }
        return out.toByteArray();
    }

    private static void cstring(DataOutputStream data, String text) throws IOException {
        data.write(text.getBytes(StandardCharsets.UTF_8));
        data.writeByte(0);
    }

    private static byte[] cstrings(String... texts) throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        DataOutputStream data = new DataOutputStream(bytes);
        for (String text : texts) {
            cstring(data, text);
        }
        return bytes.toByteArray();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
