/** The rewrite executor and the committer. */
package io.firn.worker;
