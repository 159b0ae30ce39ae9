// Package proto is the gRPC protocol between the nomadish client and a
// driver plugin: driver.proto and the code ./gen.sh generates from it.
package proto
