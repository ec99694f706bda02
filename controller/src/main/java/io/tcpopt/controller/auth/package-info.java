/**
 * Who may do what on a controller. {@link io.tcpopt.controller.auth.Authenticator} turns the
 * credentials of one request (a bearer token, a verified client certificate) into a {@link
 * io.tcpopt.controller.auth.Caller}: an operator, or a node acting as the node its certificate
 * names. The gRPC API and the console both decide with it; what each role may then call is
 * theirs to enforce (operators change and read policy and status; nodes register, heartbeat and
 * watch as themselves only).
 */
package io.tcpopt.controller.auth;
