package org.slf4j.impl;

import org.slf4j.spi.MDCAdapter;

import dev.kconnect.host.HostMdc;

/** SLF4J 1.7's MDC binding of the kconnect plugin host: {@link HostMdc}. */
public final class StaticMDCBinder {

    /** Read by older slf4j-api 1.7 releases. */
    public static final StaticMDCBinder SINGLETON = new StaticMDCBinder();

    private StaticMDCBinder() {
    }

    public static StaticMDCBinder getSingleton() {
        return SINGLETON;
    }

    public MDCAdapter getMDCA() {
        return HostMdc.adapter();
    }

    public String getMDCAdapterClassStr() {
        return HostMdc.class.getName();
    }
}
