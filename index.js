// n8n discovers this package's nodes and credentials through the "n8n" section of package.json.
module.exports = {};
