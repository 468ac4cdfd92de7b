// The wire types of Gangway's API, generated at build time from `openapi.json` (the
// OpenAPI document in GangwayProtocol, linked here) by swift-openapi-generator: the
// `Components` and `Operations` namespaces. Nothing else lives in this module, so it can
// be built with the generator's warnings silenced (imports it declares public and does
// not use) while every hand-written module keeps warnings on. GangwayProtocol re-exports
// it.
