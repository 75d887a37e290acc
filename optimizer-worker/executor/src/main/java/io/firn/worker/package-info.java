/** The rewrite executor, the local optimizer and the worker loop every runtime hosts. */
package io.firn.worker;
