package io.littlegrid.jmeter;

import java.beans.PropertyDescriptor;

import org.apache.jmeter.testbeans.BeanInfoSupport;

/** The editor of {@link JdbcConnectionPerRequest}: the pool's name and pooled or per_request (JMeter's TestBean GUI). */
public class JdbcConnectionPerRequestBeanInfo extends BeanInfoSupport {
    public JdbcConnectionPerRequestBeanInfo() {
        super(JdbcConnectionPerRequest.class);
        createPropertyGroup("pool", new String[] {"dataSource", "connection"});
        PropertyDescriptor p = property("dataSource");
        p.setValue(NOT_UNDEFINED, Boolean.TRUE);
        p.setValue(DEFAULT, "");
        p = property("connection");
        p.setValue(NOT_UNDEFINED, Boolean.TRUE);
        p.setValue(DEFAULT, JdbcConnectionPerRequest.POOLED);
    }
}
