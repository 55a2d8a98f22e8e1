package io.pgward.wire.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.DefaultEventLoop;
import io.pgward.guard.Verdict;
import io.pgward.guard.lexer.SqlLexer;
import io.pgward.guard.policy.GuardPipeline;
import io.pgward.guard.policy.LoginPolicy;
import io.pgward.testkit.PostgresTest;
import io.pgward.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The guard pipeline called from an event loop, as sessions call it: no JDBC runs there, neither to prove a
 * statement nor to resolve a login's selection again after a schema change; and a statement proven after the change
 * sees the new selection.
 */
@PostgresTest
class GuardPipelineOffLoopTest {

    private static final String SEARCH_PATH = "\"$user\", public";

    private final TestDatabase database;

    GuardPipelineOffLoopTest(TestDatabase database) {
        this.database = database;
    }

    @Test
    void runsNoJdbcOnAnEventLoopAndFindsARecreatedTableAfterASchemaChange() throws Exception {
        execute("CREATE TABLE guarded(id int)");
        DefaultEventLoop loop = new DefaultEventLoop();
        GuardPipeline pipeline = GuardPipeline.withCatalog(new GuardPipeline.ControlConnections() {
            @Override
            public String jdbcUrl(String name) {
                return database.jdbcUrl() + "?socketFactory=" + LoopCheckingSocketFactory.class.getName();
            }

            @Override
            public int checkConnections() {
                return 2;
            }
        });
        LoginPolicy login = new LoginPolicy("analyst", database.user(), database.password(),
                List.of("public.guarded"), "logins.analyst.tables", Duration.ofSeconds(5));
        try {
            LoopCheckingSocketFactory.VIOLATIONS.clear();
            assertEquals(Verdict.ALLOW, onLoop(loop, () -> prove(pipeline, login, "SELECT id FROM guarded")));

            execute("DROP TABLE guarded; CREATE TABLE guarded(id int)");
            loop.submit(pipeline::schemaChanged).get(30, TimeUnit.SECONDS);
            assertEquals(Verdict.ALLOW, onLoop(loop, () -> prove(pipeline, login, "SELECT id FROM guarded")));

            assertEquals(List.of(), LoopCheckingSocketFactory.VIOLATIONS);
        } finally {
            pipeline.close();
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    private CompletionStage<Verdict> prove(GuardPipeline pipeline, LoginPolicy login, String sql)
            throws Exception {
        return pipeline.prove(login, database.name(), SqlLexer.split(sql, true), SEARCH_PATH, true, List.of(), true);
    }

    private static <T> T onLoop(DefaultEventLoop loop, Callable<CompletionStage<T>> call) throws Exception {
        return loop.submit(call).get(30, TimeUnit.SECONDS).toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    private void execute(String sql) throws Exception {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
