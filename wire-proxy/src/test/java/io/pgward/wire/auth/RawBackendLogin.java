package io.pgward.wire.auth;

import io.pgward.testkit.TestDatabase;
import io.pgward.wire.auth.BackendAuthenticator.Respond;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Logs in to a real PostgreSQL over a plain socket with {@link BackendAuthenticator} answering every
 * AuthenticationRequest, the way pgward's backend side will, but without Netty.
 *
 * @param requestCodes the AuthenticationRequest codes the server sent, in order
 * @param sqlState null when the server reached ReadyForQuery, else the SQLSTATE of its ErrorResponse
 */
record RawBackendLogin(List<Integer> requestCodes, String sqlState) {

    static RawBackendLogin login(TestDatabase database, String user, String password) throws IOException {
        BackendAuthenticator authenticator = new BackendAuthenticator(user, password);
        List<Integer> codes = new ArrayList<>();
        try (Socket socket = new Socket(database.host(), database.port())) {
            socket.setSoTimeout(30_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            DataInputStream in = new DataInputStream(socket.getInputStream());
            // StartupMessage: int32 len | int32 196608 (3.0) | (cstring name, cstring value)* | NUL
            byte[] parameters = cstrings("user", user, "database", database.name(), "");
            out.writeInt(8 + parameters.length);
            out.writeInt(196_608);
            out.write(parameters);
            out.flush();
            while (true) {
                byte type = in.readByte();
                byte[] body = new byte[in.readInt() - 4];
                in.readFully(body);
                switch (type) {
                    case 'R' -> {
                        ByteBuffer buffer = ByteBuffer.wrap(body);
                        int code = buffer.getInt();
                        codes.add(code);
                        BackendAuthenticator.Step step =
                                authenticator.onRequest(code, Arrays.copyOfRange(body, 4, body.length));
                        if (step instanceof Respond(byte[] payload)) {
                            out.writeByte('p');
                            out.writeInt(4 + payload.length);
                            out.write(payload);
                            out.flush();
                        }
                    }
                    case 'E' -> {
                        return new RawBackendLogin(codes, field(body, 'C'));
                    }
                    case 'Z' -> {
                        out.writeByte('X');
                        out.writeInt(4);
                        out.flush();
                        return new RawBackendLogin(codes, null);
                    }
                    default -> {
                        // ParameterStatus, BackendKeyData, NoticeResponse: not needed here.
                    }
                }
            }
        }
    }

    /** ErrorResponse body: (byte field type, cstring value)* then NUL. */
    private static String field(byte[] body, char wanted) {
        int i = 0;
        while (i < body.length && body[i] != 0) {
            char type = (char) body[i++];
            int end = i;
            while (body[end] != 0) {
                end++;
            }
            if (type == wanted) {
                return new String(body, i, end - i, StandardCharsets.UTF_8);
            }
            i = end + 1;
        }
        return "no " + wanted + " field";
    }

    private static byte[] cstrings(String... values) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String value : values) {
            out.writeBytes(value.getBytes(StandardCharsets.UTF_8));
            out.write(0);
        }
        return out.toByteArray();
    }
}
