package org.slf4j.impl;

import org.slf4j.ILoggerFactory;
import org.slf4j.spi.LoggerFactoryBinder;

import dev.kconnect.host.HostLoggerFactory;

/**
 * The SLF4J 1.7 binding of the kconnect plugin host: slf4j-api 1.7 (on the host's class path,
 * shared with every plugin) finds this class by name and logs through
 * {@link HostLoggerFactory}. Without it SLF4J falls back to its no-operation logger and every
 * plugin's log line is lost.
 */
public final class StaticLoggerBinder implements LoggerFactoryBinder {

    /**
     * The SLF4J API version this binding is written for (SLF4J checks it). Not final, so that
     * the compiler does not fold it into SLF4J's check.
     */
    public static String REQUESTED_API_VERSION = "1.6.99";

    private static final StaticLoggerBinder SINGLETON = new StaticLoggerBinder();

    private StaticLoggerBinder() {
    }

    public static StaticLoggerBinder getSingleton() {
        return SINGLETON;
    }

    @Override
    public ILoggerFactory getLoggerFactory() {
        return HostLoggerFactory.instance();
    }

    @Override
    public String getLoggerFactoryClassStr() {
        return HostLoggerFactory.class.getName();
    }
}
