package io.littlegrid.jmeter;

import java.sql.Connection;
import java.sql.SQLException;

import org.apache.commons.dbcp2.DelegatingConnection;
import org.apache.jmeter.processor.PostProcessor;
import org.apache.jmeter.protocol.jdbc.config.DataSourceElement;
import org.apache.jmeter.testbeans.TestBean;
import org.apache.jmeter.testelement.AbstractTestElement;
import org.apache.jmeter.threads.JMeterContextService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection per JDBC request: put under a JDBC Request, with {@code connection = per_request} it closes the
 * database connection the request just used as soon as the request ends, so that the next request of the thread
 * opens a new one. JMeter's JDBC pool (DBCP) never closes a connection by itself; a connection limit in front of the
 * database (haproxy's {@code maxconn} in tcp mode) counts connections, and with long-lived ones it would admit that
 * many threads for the whole test and starve the rest. With one connection per request it admits requests.
 *
 * <p>How: it borrows the thread's connection from the pool the request named (the one it just returned), closes the
 * physical connection under DBCP's wrappers, and returns the wrapper: DBCP finds it closed and drops it from the pool
 * (a closed connection is invalidated, not kept), so the next borrow connects anew. With {@code pool_max = 0} (a
 * pool of one per thread) that is exactly the connection the request used. {@code pooled} does nothing. Compiled, not
 * a JSR223 script: it runs after every request, while the closed-but-not-yet-released connection still holds its
 * slot at the proxy, so it must cost microseconds (a JSR223 element builds a script engine per call).
 */
public class JdbcConnectionPerRequest extends AbstractTestElement implements PostProcessor, TestBean {
    private static final long serialVersionUID = 1L;
    private static final Logger log = LoggerFactory.getLogger(JdbcConnectionPerRequest.class);
    public static final String PER_REQUEST = "per_request";
    public static final String POOLED = "pooled";

    private String dataSource = "";
    private String connection = POOLED;

    @Override
    public void process() {
        String mode = connection == null ? "" : connection.trim();
        if (POOLED.equals(mode)) {
            return;
        }
        if (!PER_REQUEST.equals(mode)) {
            // a silent pooled run would be another experiment than the one asked for
            JMeterContextService.getContext().getThread().stop();
            throw new IllegalArgumentException("connection must be " + POOLED + " or " + PER_REQUEST + ", got '"
                    + connection + "' (" + getName() + ")");
        }
        try (Connection pooled = DataSourceElement.getConnection(dataSource)) {
            Connection inner = pooled instanceof DelegatingConnection<?> d ? d.getInnermostDelegateInternal() : null;
            if (inner != null) {
                inner.close();
            }
        } catch (SQLException e) {
            log.warn("{}: could not close the connection of pool {}: {}", getName(), dataSource, e.toString());
        }
    }

    public String getDataSource() {
        return dataSource;
    }

    public void setDataSource(String dataSource) {
        this.dataSource = dataSource;
    }

    public String getConnection() {
        return connection;
    }

    public void setConnection(String connection) {
        this.connection = connection;
    }
}
