import GangwayProtocol

/// A backend of an app's, reached by its devices through the server as the signed-in
/// person, as the server's admin API shows it: the API's own type. Its `requests` are the
/// requests forwarded in the last 7 days by the backend's status (0: it could not be
/// reached); a `credential` destination's header value is never shown.
public typealias ManagedDestination = Components.Schemas.Destination
