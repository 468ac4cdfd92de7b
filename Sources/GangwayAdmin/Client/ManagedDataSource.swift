import GangwayProtocol

/// An entity set's data source, as the server's admin API shows it: the API's own type.
/// Its delta link is never shown, only whether one is kept (`hasDeltaLink`).
public typealias ManagedDataSource = Components.Schemas.DataSource
