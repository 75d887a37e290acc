/*
 * SPDX-License-Identifier: Apache-2.0
 * Copyright The Firn authors. See the LICENSE and NOTICE files at the root of the repository.
 */
package io.firn.server.it;

import java.net.InetSocketAddress;
import org.apache.hadoop.hive.conf.HiveConf;
import org.apache.hadoop.hive.metastore.HiveMetaStore;
import org.apache.hadoop.hive.metastore.IHMSHandler;
import org.apache.hadoop.hive.metastore.TUGIBasedProcessor;
import org.apache.hadoop.hive.metastore.txn.TxnDbUtil;
import org.apache.hadoop.hive.thrift.TUGIContainingTransport;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.transport.TServerSocket;

/**
 * A Hive Metastore (Hive 2.3, Thrift on 127.0.0.1) with an embedded Derby database, run by {@link
 * HiveMetastoreProcess} in a JVM of its own: {@code <port> <derby directory> <warehouse>}. Creates
 * the metastore's schema and its transaction tables (Iceberg's HiveCatalog takes a metastore lock
 * for each commit). Serves Hive's own handler and processor the way {@code
 * HiveMetaStore.startMetaStore} does without SASL, but on 127.0.0.1 only: Hive 2.3's start method
 * binds every interface.
 */
public final class HiveMetastoreMain {
  private HiveMetastoreMain() {}

  public static void main(String[] args) throws Throwable {
    int port = Integer.parseInt(args[0]);
    HiveConf conf = new HiveConf();
    conf.set(
        "javax.jdo.option.ConnectionURL", "jdbc:derby:;databaseName=" + args[1] + ";create=true");
    conf.set("hive.metastore.warehouse.dir", args[2]);
    conf.set("hive.metastore.schema.verification", "false");
    conf.set("datanucleus.schema.autoCreateAll", "true");
    // Hive's default pool (BoneCP) and expression proxy (in hive-exec) are not on the classpath.
    conf.set("datanucleus.connectionPoolingType", "HikariCP");
    conf.set(
        "hive.metastore.expression.proxy",
        "org.apache.hadoop.hive.metastore.DefaultPartitionExpressionProxy");
    TxnDbUtil.prepDb(conf);
    IHMSHandler handler =
        HiveMetaStore.newRetryingHMSHandler(
            new HiveMetaStore.HMSHandler("firn-it metastore", conf, false), conf, false);
    TServerSocket socket = new TServerSocket(new InetSocketAddress("127.0.0.1", port));
    TThreadPoolServer server =
        new TThreadPoolServer(
            new TThreadPoolServer.Args(socket)
                .processor(new TUGIBasedProcessor<>(handler))
                .transportFactory(new TUGIContainingTransport.Factory())
                .protocolFactory(new TBinaryProtocol.Factory())
                .minWorkerThreads(2)
                .maxWorkerThreads(32));
    server.serve();
  }
}
