package io.pgward.wire.gate;

import io.netty.util.concurrent.FastThreadLocalThread;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.SocketFactory;

/**
 * A pgjdbc {@code socketFactory} whose sockets note every read or write made on a Netty event-loop thread (Netty
 * runs its loops on {@link FastThreadLocalThread}s): JDBC there would stall every session of the loop.
 */
public final class LoopCheckingSocketFactory extends SocketFactory {

    /** Threads that did JDBC I/O on an event loop, with what they did. */
    static final List<String> VIOLATIONS = new CopyOnWriteArrayList<>();

    public LoopCheckingSocketFactory() {
    }

    private static void check(String what) {
        if (Thread.currentThread() instanceof FastThreadLocalThread) {
            VIOLATIONS.add(Thread.currentThread().getName() + " " + what);
        }
    }

    @Override
    public Socket createSocket() {
        return new CheckingSocket();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        check("connect");
        Socket socket = new CheckingSocket();
        socket.connect(new java.net.InetSocketAddress(host, port));
        return socket;
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return createSocket(host, port);
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return createSocket(host.getHostAddress(), port);
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        return createSocket(address.getHostAddress(), port);
    }

    private static final class CheckingSocket extends Socket {
        @Override
        public void connect(java.net.SocketAddress endpoint, int timeout) throws IOException {
            check("connect");
            super.connect(endpoint, timeout);
        }

        @Override
        public InputStream getInputStream() throws IOException {
            return new FilterInputStream(super.getInputStream()) {
                @Override
                public int read() throws IOException {
                    check("read");
                    return super.read();
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    check("read");
                    return super.read(b, off, len);
                }
            };
        }

        @Override
        public OutputStream getOutputStream() throws IOException {
            return new FilterOutputStream(super.getOutputStream()) {
                @Override
                public void write(int b) throws IOException {
                    check("write");
                    super.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    check("write");
                    out.write(b, off, len);
                }
            };
        }
    }
}
