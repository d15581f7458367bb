package com.kindgi.pack.internal;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The pack service's HTTP server (Netty): it reads every connection continuously, so a caller that goes
 * away mid-call is noticed at once and the call is cancelled. Handlers run on threads of their own.
 */
public final class PackServer {
  /** Shared state of the running service. */
  public static final class State {
    public final PackCatalog catalog;
    public final CallRunner runner;
    public final String token;
    public final int maxConcurrency;
    public final boolean strictEnv;
    public final List<String> missingEnv;
    public final PackLog log;
    public final AtomicInteger inFlight = new AtomicInteger();
    public volatile boolean draining;
    public volatile boolean ready;
    public final ExecutorService handlers = Executors.newCachedThreadPool(daemon("kindgi-call"));
    public final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(daemon("kindgi-deadline"));

    public State(PackCatalog catalog, String token, int maxConcurrency, boolean strictEnv, List<String> missingEnv, PackLog log) {
      this.catalog = catalog;
      this.runner = new CallRunner(catalog, log);
      this.token = token;
      this.maxConcurrency = maxConcurrency;
      this.strictEnv = strictEnv;
      this.missingEnv = List.copyOf(missingEnv);
      this.log = log;
    }
  }

  private final State state;
  private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, daemon("kindgi-accept"), NioIoHandler.newFactory());
  private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(0, daemon("kindgi-io"), NioIoHandler.newFactory());
  private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private @Nullable Channel server;

  public PackServer(State state) {
    this.state = state;
  }

  public State state() {
    return state;
  }

  /** Listens on {@code host} (every interface when null) and {@code port} (0: any free one); returns the bound port. */
  public int listen(@Nullable String host, int port) throws InterruptedException {
    ServerBootstrap bootstrap = new ServerBootstrap()
        .group(boss, workers)
        .channel(NioServerSocketChannel.class)
        .option(ChannelOption.SO_BACKLOG, 511)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            channels.add(ch);
            ch.pipeline().addLast(new HttpServerCodec(8192, 65536, 65536));
            ch.pipeline().addLast(new RequestHandler(state));
          }
        });
    InetSocketAddress address = host == null ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
    server = bootstrap.bind(address).sync().channel();
    state.ready = true;
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  /** Stops taking calls (readyz and new invokes answer 503) and waits, polling every 25 ms, until none is in flight or {@code graceMs} passes. */
  public void drain(long graceMs) throws InterruptedException {
    state.draining = true;
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMs);
    while (state.inFlight.get() > 0 && System.nanoTime() < end) Thread.sleep(25);
  }

  /** Closes the listener and every connection, cutting off calls still running. */
  public void close() {
    if (server != null) server.close().awaitUninterruptibly(2000);
    channels.close().awaitUninterruptibly(2000);
    state.handlers.shutdownNow();
    state.timers.shutdownNow();
    boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2000);
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2000);
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
