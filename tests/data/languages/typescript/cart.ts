interface Item {
  sku: string;
  price: number;
  quantity: number;
}

/** Sums the prices of the items in a cart. */
export function totalPrice(items: Item[]): number {
  return items.reduce((sum, item) => sum + item.price * item.quantity, 0);
}

export class Cart {
  private items: Item[] = [];

  /** Adds an item to the cart. */
  addItem(item: Item): number {
    this.items.push(item);
    return this.items.length;
  }
}

/** Removes the items that are out of stock. */
export const removeUnavailable = (items: Item[], stock: Set<string>): Item[] =>
  items.filter((item) => stock.has(item.sku));
