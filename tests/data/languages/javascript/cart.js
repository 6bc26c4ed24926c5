/**
 * Sums the prices of the items in a cart.
 * @param {Array} items the cart's items
 */
function totalPrice(items) {
  return items.reduce((sum, item) => sum + item.price * item.quantity, 0);
}

class Cart {
  constructor(owner) {
    this.owner = owner;
    this.items = [];
  }

  /** Adds an item to the cart. */
  addItem(item) {
    this.items.push(item);
    return this.items.length;
  }
}

/** Removes the items that are out of stock. */
const removeUnavailable = (items, stock) => items.filter((item) => stock.has(item.sku));

module.exports = { totalPrice, Cart, removeUnavailable };
